import AppNativeHTTP
import AppNativeProxy
import AppNativeServer
import Testing

/// The forwarding fields the gateway writes (RFC 7239 `Forwarded`, the X-Forwarded-* trio).
@Suite("Forwarding headers")
struct ForwardingHeadersTests {
    private func applied(
        peer: SocketAddress, secure: Bool = false, host: String?, original: HTTPHeaders = [:], trusted: TrustedProxies = .none
    ) -> HTTPHeaders {
        var headers = original
        ForwardingHeaders.apply(to: &headers, original: original, peer: peer, isSecure: secure, trusted: trusted, host: host)
        return headers
    }

    @Test("TRUSTED_PROXIES entries without an address or with an empty prefix are refused, not read out of range",
          arguments: ["/", "//", "/8", "10.0.0.0/", "10.0.0.0/x", "10.0.0.0/33", "::1/129", "a/8"])
    func malformedTrustedProxies(entry: String) {
        #expect(throws: TrustedProxies.InvalidCIDR.self, "\(entry)") { try TrustedProxies(parsing: "127.0.0.1, " + entry) }
    }

    @Test("TRUSTED_PROXIES: a bare address is its own /32 or /128")
    func trustedProxiesParse() throws {
        let trusted = try TrustedProxies(parsing: " 10.0.0.0/8 , 192.168.1.10, ::1/128,")
        #expect(trusted.contains("10.200.0.1") && trusted.contains("192.168.1.10") && trusted.contains("::1"))
        #expect(!trusted.contains("192.168.1.11") && !trusted.contains("11.0.0.1"))
    }

    @Test("IPv4 peer, plain host")
    func ipv4() {
        let headers = applied(peer: SocketAddress(host: "10.1.2.3", port: 5000, family: .inet4), host: "api.example.com")
        #expect(headers.first("Forwarded") == "for=10.1.2.3;proto=http;host=api.example.com")
        #expect(headers.first("X-Forwarded-For") == "10.1.2.3")
        #expect(headers.first("X-Forwarded-Proto") == "http")
        #expect(headers.first("X-Forwarded-Host") == "api.example.com")
    }

    @Test("IPv6 peer is bracketed and quoted; a host with a port is quoted")
    func ipv6() {
        let headers = applied(
            peer: SocketAddress(host: "2001:db8::1", port: 5000, family: .inet6), secure: true, host: "api.example.com:8443")
        #expect(headers.first("Forwarded") == #"for="[2001:db8::1]";proto=https;host="api.example.com:8443""#)
    }

    @Test("a host that cannot be a token or quoted safely is left out of Forwarded")
    func unsafeHost() {
        let headers = applied(peer: SocketAddress(host: "10.1.2.3", port: 5000, family: .inet4), host: "a b;c")
        #expect(headers.first("Forwarded") == "for=10.1.2.3;proto=http")
    }

    @Test("an untrusted peer's forwarding fields are replaced; a trusted one's are extended")
    func trust() throws {
        let original: HTTPHeaders = ["X-Forwarded-For": "6.6.6.6", "Forwarded": "for=6.6.6.6", "X-Forwarded-Proto": "https"]
        let peer = SocketAddress(host: "10.1.2.3", port: 5000, family: .inet4)
        let untrusted = applied(peer: peer, host: "h", original: original)
        #expect(untrusted.values("X-Forwarded-For") == ["10.1.2.3"])
        #expect(untrusted.values("Forwarded") == ["for=10.1.2.3;proto=http;host=h"])
        let trusted = applied(peer: peer, host: "h", original: original, trusted: try TrustedProxies(parsing: "10.0.0.0/8"))
        #expect(trusted.values("X-Forwarded-For") == ["6.6.6.6, 10.1.2.3"])
        #expect(trusted.values("Forwarded") == ["for=6.6.6.6, for=10.1.2.3;proto=https;host=h"])
    }

    @Test("long values from a trusted proxy (scheme, host) fit the element: nothing is cut or trapped")
    func longTrustedValues() throws {
        let longProto = String(repeating: "p", count: 300)
        let longHost = String(repeating: "h", count: 500) + ":8443"
        let original: HTTPHeaders = ["X-Forwarded-Proto": longProto, "X-Forwarded-Host": longHost]
        let trusted = applied(
            peer: SocketAddress(host: "2001:db8::1", port: 5000, family: .inet6), host: "h", original: original,
            trusted: try TrustedProxies(parsing: "2001:db8::/32"))
        #expect(trusted.first("Forwarded") == "for=\"[2001:db8::1]\";proto=\(longProto);host=\"\(longHost)\"")
    }
}
