import AppNativeClient
import Testing

@Suite("URLPolicy")
struct URLPolicyTests {
    @Test(
        "loopback hosts",
        arguments: [
            "localhost", "LOCALHOST", "127.0.0.1", "127.255.255.254", "127.0.0.2",
            "::1", "[::1]", "0:0:0:0:0:0:0:1", "[::ffff:127.0.0.1]",
        ]
    )
    func loopback(host: String) {
        #expect(URLPolicy.isLoopbackHost(host))
    }

    @Test(
        "hosts that are not loopback, or not literally so",
        arguments: [
            "", "example.com", "localhost.", "localhost.example.com", "127.0.0.1.nip.io", "my-localhost",
            "128.0.0.1", "126.255.255.255", "10.0.0.1", "0.0.0.0", "::", "[::2]", "::ffff:10.0.0.1",
            "127.1", "0x7f.0.0.1", "0177.0.0.1", "127.0.0.01", "[127.0.0.1]",
        ]
    )
    func notLoopback(host: String) {
        #expect(!URLPolicy.isLoopbackHost(host))
    }

    @Test(
        "accepted outbound URLs",
        arguments: [
            ("https://login.microsoftonline.com/tenant/discovery/v2.0/keys", false),
            ("HTTPS://Example.COM:8443/path?query=1#fragment", false),
            ("https://[2001:db8::1]/", false),
            ("http://127.0.0.1:8080/keys", true),
            ("http://localhost/keys", true),
            ("http://[::1]:9000/", true),
            // curl normalises the short IPv4 form to 127.0.0.1 before the loopback check.
            ("http://127.1/", true),
        ]
    )
    func accepted(url: String, allowsCleartextOnLoopback: Bool) throws {
        try URLPolicy.validateOutbound(url: url, allowsCleartextOnLoopback: allowsCleartextOnLoopback)
    }

    @Test(
        "refused outbound URLs",
        arguments: [
            ("http://127.0.0.1/keys", false, ClientError.Code.insecureScheme),
            ("http://example.com/keys", true, .insecureScheme),
            ("http://10.1.2.3/", true, .insecureScheme),
            ("http://localhost.example.com/", true, .insecureScheme),
            ("ftp://127.0.0.1/file", true, .insecureScheme),
            ("file:///etc/passwd", true, .insecureScheme),
            ("gopher://127.0.0.1/", true, .insecureScheme),
            ("madeup://example.com/", false, .insecureScheme),
            ("//example.com/keys", false, .invalidURL),
            ("example.com/keys", false, .invalidURL),
            ("https://", false, .invalidURL),
            ("https://exa mple.com/", false, .invalidURL),
            ("https://user:pass@example.com/", false, .invalidURL),
            ("https://user@example.com/", false, .invalidURL),
            ("", false, .invalidURL),
        ]
    )
    func refused(url: String, allowsCleartextOnLoopback: Bool, code: ClientError.Code) {
        #expect(throws: ClientError(code, reason: "")) {
            try URLPolicy.validateOutbound(url: url, allowsCleartextOnLoopback: allowsCleartextOnLoopback)
        }
    }

    @Test("reasons never repeat the URL's path, query or credentials")
    func reasonsOmitURLSecrets() {
        let urls = [
            "https://user:hunter2-secret@example.com/keys",
            "http://example.com/hooks/hunter2-secret?token=hunter2-secret",
            "https://exa mple.com/hunter2-secret",
            "madeup://example.com/hunter2-secret",
        ]
        for url in urls {
            do {
                try URLPolicy.validateOutbound(url: url, allowsCleartextOnLoopback: true)
                Issue.record("expected \(url) to be refused")
            } catch {
                #expect(!error.description.contains("hunter2"))
            }
        }
    }
}
