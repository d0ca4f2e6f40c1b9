import AppNativeDevPeers
import AppNativeTesting
import Foundation
import Glibc
import Testing

/// HTTP/2 toward clients through the real gateway binary: curl, nghttp and h2load as clients,
/// the Python frame player for sequences no well-behaved client sends. Every identity behaviour
/// tested here has its HTTP/1.1 test in `IdentityTests`.
@Suite("HTTP/2 toward clients", .serialized)
struct HTTP2Tests {
    static let root = ProcessRunner.repositoryRoot()
    static let tls = [
        "TLS_CERT_FILE": root + "/keys/test/localhost.pem",
        "TLS_KEY_FILE": root + "/keys/test/localhost-key.pem",
    ]

    /// curl with `-w` printing the status and the protocol version after the body.
    static func curl(_ arguments: [String]) async throws -> (status: Int32, body: String, code: String, version: String) {
        let output = try await ProcessRunner.run(
            "/usr/bin/curl", ["-sS", "--max-time", "20", "-w", "\n%{http_code} %{http_version}"] + arguments)
        var lines = output.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let last = lines.popLast() ?? ""
        let parts = last.split(separator: " ").map(String.init)
        return (output.status, lines.joined(separator: "\n"), parts.first ?? "", parts.count > 1 ? parts[1] : "")
    }

    static func echoHeaders(_ body: String) -> [(String, String)] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
            let headers = object["headers"] as? [[String]]
        else { return [] }
        return headers.map { ($0[0].lowercased(), $0[1]) }
    }

    static func adversary(_ scenario: String, port: Int, _ extra: [String] = []) async throws -> [String: Any] {
        let output = try await ProcessRunner.run(
            ProcessRunner.python, [root + "/Tests/Peers/h2_adversary.py", scenario, String(port)] + extra)
        let line = output.stdout.split(separator: "\n").last.map(String.init) ?? ""
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            Issue.record("no report from \(scenario): \(output.stderr)")
            return [:]
        }
        return object
    }

    @Test("cleartext: prior knowledge speaks HTTP/2, HTTP/1.1 keeps working on the same port; bodies stream both ways")
    func cleartext() async throws {
        let fixture = try await ProxyFixture.start()
        defer { fixture.stop() }
        let base = "http://127.0.0.1:\(fixture.port)"
        let h2 = try await Self.curl(["--http2-prior-knowledge", base + "/echo/h2?x=1"])
        #expect(h2.status == 0 && h2.code == "200" && h2.version == "2", "\(h2)")
        #expect(Self.echoHeaders(h2.body).first { $0.0 == "host" }?.1 == "127.0.0.1:\(fixture.port)")
        let h1 = try await Self.curl([base + "/echo/h1"])
        #expect(h1.code == "200" && h1.version == "1.1", "\(h1)")

        // A request body of unknown length (no content-length) and one of known length reach the
        // upstream whole; a response larger than every window comes back whole.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("h2-body-\(UUID().uuidString)")
        let body = (0..<400_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(body).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let digest = try await ProcessRunner.run(
            ProcessRunner.python, ["-c", "import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],'rb').read()).hexdigest())", file.path])
        let expectedDigest = digest.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        for extra in [[], ["-H", "Content-Length:"]] {
            let post = try await Self.curl(["--http2-prior-knowledge", "-X", "POST", "--data-binary", "@" + file.path] + extra + [base + "/echo/post"])
            #expect(post.code == "200" && post.version == "2", "\(post.code) \(post.version)")
            let echo = try JSONSerialization.jsonObject(with: Data(post.body.utf8)) as? [String: Any] ?? [:]
            #expect(echo["body_length"] as? Int == body.count)
            #expect(echo["body_sha256"] as? String == expectedDigest)
        }
        let big = try await ProcessRunner.run(
            "/usr/bin/curl", ["-sS", "--max-time", "30", "--http2-prior-knowledge", "-o", "/dev/null", "-w", "%{http_code} %{size_download}",
                              base + "/big?n=5000000"])
        #expect(big.stdout == "200 5000000", "\(big.stdout) \(big.stderr)")
        let stream = try await Self.curl(["--http2-prior-knowledge", base + "/sse-short"])
        #expect(stream.code == "200" && stream.body.contains("data: one"), "\(stream)")

        // The metrics tell the protocols apart.
        let metrics = try await ProcessRunner.run("/usr/bin/curl", ["-sS", "http://127.0.0.1:\(fixture.gateway.adminPort)/metrics"])
        #expect(metrics.stdout.contains("appnative_http_protocol_requests_total{protocol=\"h2\"}"), "\(metrics.stdout.prefix(400))")
        #expect(metrics.stdout.contains("appnative_http_connections_http2_total "))
    }

    @Test("TLS: ALPN selects h2 for curl, nghttp and h2load; http/1.1 stays available")
    func tls() async throws {
        let fixture = try await ProxyFixture.start(Self.tls)
        defer { fixture.stop() }
        let url = "https://localhost:\(fixture.port)/echo/tls"
        let ca = Self.root + "/keys/test/ca.pem"
        let h2 = try await Self.curl(["--http2", "--cacert", ca, url])
        #expect(h2.code == "200" && h2.version == "2", "\(h2)")
        #expect(Self.echoHeaders(h2.body).first { $0.0 == "x-forwarded-proto" }?.1 == "https")
        let h1 = try await Self.curl(["--http1.1", "--cacert", ca, url])
        #expect(h1.code == "200" && h1.version == "1.1", "\(h1)")
        let nghttp = try await ProcessRunner.run("/usr/bin/nghttp", ["-n", "-v", url])
        #expect(nghttp.status == 0, "\(nghttp.stderr)")
        #expect(nghttp.stdout.contains("The negotiated protocol: h2"))
        #expect(nghttp.stdout.contains(":status: 200"))
        let load = try await ProcessRunner.run("/usr/bin/h2load", ["-n", "200", "-c", "2", "-m", "10", url])
        #expect(load.stdout.contains("200 succeeded, 0 failed"), "\(load.stdout)")
        #expect(load.stdout.contains("Application protocol: h2"), "\(load.stdout)")
    }

    @Test("HTTP2=false: ALPN offers only http/1.1 and the preface is not HTTP/2")
    func switchedOff() async throws {
        let fixture = try await ProxyFixture.start(Self.tls.merging(["HTTP2": "false"]) { $1 })
        defer { fixture.stop() }
        let ca = Self.root + "/keys/test/ca.pem"
        let https = try await Self.curl(["--http2", "--cacert", ca, "https://localhost:\(fixture.port)/echo/off"])
        #expect(https.code == "200" && https.version == "1.1", "\(https)")
        let plain = try await ProxyFixture.start(["HTTP2": "false"])
        defer { plain.stop() }
        let prior = try await Self.curl(["--http2-prior-knowledge", "http://127.0.0.1:\(plain.port)/echo/off"])
        #expect(prior.code != "200", "\(prior)")
        let h1 = try await Self.curl(["http://127.0.0.1:\(plain.port)/echo/off"])
        #expect(h1.code == "200" && h1.version == "1.1")
    }

    /// Beside `IdentityTests.noCredential`, `validToken` and `cookieOnly`: the same rules over HTTP/2.
    @Test("identity over HTTP/2: 401 without a credential; a token's identity reaches the upstream, forged fields never do; its cookie signs the next request in")
    func identity() async throws {
        let fixture = try await ProxyFixture.start(["PUBLIC_PATHS": "/public"])
        defer { fixture.stop() }
        let base = "http://127.0.0.1:\(fixture.port)"
        let anonymous = try await Self.curl(["--http2-prior-knowledge", "-D", "-", base + "/echo"])
        #expect(anonymous.code == "401" && anonymous.version == "2")
        #expect(anonymous.body.lowercased().contains("www-authenticate: bearer"))
        #expect(anonymous.body.contains(#"{"detail":"Not authenticated"}"#))

        let token = try ProxyFixture.devProvider().token(issuedAt: Date().timeIntervalSince1970, lifetime: .seconds(3600))
        var arguments = ["--http2-prior-knowledge", "-D", "-", "-H", "Authorization: Bearer \(token)"]
        for name in ["X-AppNative-User-Id", "X-MS-CLIENT-PRINCIPAL", "X-Forwarded-User", "Remote-User", "x-appnative-identity"] {
            arguments += ["-H", "\(name): mallory"]
        }
        arguments += ["-H", "Cookie: theme=dark; bms_session=forged-value; lang=en", base + "/echo"]
        let signedIn = try await Self.curl(arguments)
        #expect(signedIn.code == "200" && signedIn.version == "2", "\(signedIn.code)")
        let parts = signedIn.body.components(separatedBy: "\r\n\r\n")
        let responseHead = parts.first ?? ""
        let headers = Self.echoHeaders(parts.dropFirst().joined(separator: "\r\n\r\n"))
        #expect(!headers.contains { $0.1.contains("mallory") }, "\(headers.filter { $0.1.contains("mallory") })")
        func value(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }
        #expect(value("x-appnative-user-id") == DevIdentityProvider.User().objectID)
        #expect(value("x-appnative-auth-method") == "token")
        #expect(value("authorization") == nil)
        #expect(value("cookie") == "theme=dark; lang=en")
        let setCookie = try #require(
            responseHead.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie: bms_session=") })
        let cookie = String(setCookie.dropFirst("set-cookie: ".count).split(separator: ";")[0])

        let withCookie = try await Self.curl(["--http2-prior-knowledge", "-H", "Cookie: \(cookie)", base + "/echo"])
        #expect(withCookie.code == "200" && withCookie.version == "2")
        #expect(Self.echoHeaders(withCookie.body).first { $0.0 == "x-appnative-auth-method" }?.1 == "cookie")
        #expect(Self.echoHeaders(withCookie.body).first { $0.0 == "x-appnative-user-id" }?.1 == DevIdentityProvider.User().objectID)
    }

    @Test("attacks: rapid reset, CONTINUATION flood, HPACK bomb, oversized header lists, streams beyond the limit, stream ids going backwards")
    func attacks() async throws {
        let fixture = try await ProxyFixture.start()
        defer { fixture.stop() }
        let port = fixture.port
        func stillServes() async throws {
            let after = try await Self.curl(["--http2-prior-knowledge", "http://127.0.0.1:\(port)/echo/after"])
            #expect(after.code == "200" && after.version == "2")
        }

        // CVE-2023-44487: the reset rate limit ends the connection with GOAWAY.
        let rapid = try await Self.adversary("rapid-reset", port: port)
        #expect(rapid["goaway"] as? Int != nil, "\(rapid)")
        try await stillServes()

        // The 2024 CONTINUATION flood: ENHANCE_YOUR_CALM after a bounded number of frames.
        let continuation = try await Self.adversary("continuation-flood", port: port)
        #expect(continuation["goaway"] as? Int == 0xb, "\(continuation)")
        try await stillServes()

        // HPACK bomb: the block that decodes far beyond the header limit never becomes a request.
        let bomb = try await Self.adversary("hpack-bomb", port: port)
        let bombStatuses = bomb["statuses"] as? [String: Int] ?? [:]
        #expect(bombStatuses["3"] == nil, "\(bomb)")
        #expect(bomb["goaway"] as? Int != nil || (bomb["resets"] as? [String: Int] ?? [:])["3"] != nil, "\(bomb)")
        try await stillServes()

        // An oversized header list is answered 431 (as over HTTP/1.1); the connection goes on.
        let oversized = try await Self.adversary("oversized-headers", port: port)
        let oversizedStatuses = oversized["statuses"] as? [String: Int] ?? [:]
        #expect(oversizedStatuses["1"] == 431, "\(oversized)")
        #expect(oversizedStatuses["3"] == 200, "\(oversized)")

        // More streams than advertised: never more than the limit served at once. libnghttp2
        // refuses streams beyond a limit it has not seen acknowledged with REFUSED_STREAM and
        // ends the connection (PROTOCOL_ERROR) for one beyond an acknowledged limit.
        let beyond = try await Self.adversary("refused-stream", port: port)
        let beyondStatuses = beyond["statuses"] as? [String: Int] ?? [:]
        #expect(beyondStatuses.count <= 100, "\(beyondStatuses.count)")
        let refused = (beyond["resets"] as? [String: Int] ?? [:]).values.contains(7)
        #expect(refused || beyond["goaway"] as? Int == 1, "\(beyond)")
        try await stillServes()

        // A stream id lower than one already used is never served.
        let backwards = try await Self.adversary("stream-id-backwards", port: port)
        let backwardsStatuses = backwards["statuses"] as? [String: Int] ?? [:]
        #expect(backwardsStatuses["7"] == 200, "\(backwards)")
        #expect(backwardsStatuses["5"] == nil, "\(backwards)")
        try await stillServes()
    }

    @Test("SIGTERM: GOAWAY, and the stream in flight still gets its answer")
    func goAwayOnSigterm() async throws {
        let fixture = try await ProxyFixture.start()
        defer { fixture.stop() }
        let report = try await Self.adversary("sigterm", port: fixture.port, [String(fixture.gateway.pid)])
        #expect(report["goaway"] as? Int == 0, "\(report)")
        #expect((report["statuses"] as? [String: Int] ?? [:])["1"] == 200, "\(report)")
    }
}
