import AppNativeCore
import AppNativeDevPeers
import AppNativeJSON
import AppNativeTesting
import Foundation
import Glibc
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

/// The gateway in front of Tests/Peers/misbehaving_peer.py, which plays a faulty upstream, a
/// faulty authorization hook and a faulty key server (the fault chosen per request). Each test
/// asserts the answer the gateway must give and, after every fault, that the process is still
/// alive and serves a normal request.
@Suite("Misbehaving peers", .serialized)
struct MisbehavingPeerTests {
    // MARK: Upstream: interim responses

    @Test("a 100 Continue from the upstream is consumed; the client gets the final 200")
    func upstreamContinue() async throws {
        let fixture = try await MisbehavingFixture.start()
        defer { fixture.stop() }
        for fault in ["continue-then-200", "many-1xx"] {
            let exchange = try await fixture.raw("GET /fault/\(fault) HTTP/1.1\r\nHost: gw.test\r\n\r\n", until: MisbehavingFixture.okBody, timeout: .seconds(10))
            let statuses = exchange.statusLines
            #expect(!statuses.contains { $0.hasPrefix("HTTP/1.1 100") }, "\(fault): a 100 Continue reached the client: \(statuses)")
            #expect(statuses.last?.hasPrefix("HTTP/1.1 200") == true, "\(fault): \(statuses)")
            #expect(exchange.text.hasSuffix(MisbehavingFixture.okBody), "\(fault): \(exchange.text.suffix(200))")
            try await fixture.expectServing(after: fault)
        }
    }

    @Test("a 103 Early Hints is forwarded to an HTTP/1.1 client before the 200, never to an HTTP/1.0 client")
    func earlyHints() async throws {
        let fixture = try await MisbehavingFixture.start()
        defer { fixture.stop() }
        let modern = try await fixture.raw("GET /fault/early-hints HTTP/1.1\r\nHost: gw.test\r\n\r\n", until: MisbehavingFixture.okBody)
        #expect(modern.statusLines.first?.hasPrefix("HTTP/1.1 103") == true, "statuses: \(modern.statusLines)")
        #expect(modern.statusLines.last?.hasPrefix("HTTP/1.1 200") == true, "statuses: \(modern.statusLines)")
        #expect(modern.text.lowercased().contains("link: </style.css>; rel=preload; as=style"), "\(modern.text.prefix(400))")
        let legacy = try await fixture.raw("GET /fault/early-hints HTTP/1.0\r\nHost: gw.test\r\n\r\n", until: MisbehavingFixture.okBody)
        #expect(!legacy.statusLines.contains { $0.contains(" 103") }, "an HTTP/1.0 client got a 1xx: \(legacy.statusLines)")
        #expect(legacy.statusLines.count == 1 && legacy.statusLines[0].hasSuffix(" 200 OK") && legacy.statusLines[0].hasPrefix("HTTP/1."),
                "statuses: \(legacy.statusLines)")
        try await fixture.expectServing(after: "early-hints")
    }

    @Test("a 1xx followed by nothing ends in 504 after UPSTREAM_RESPONSE_TIMEOUT, and the access log says 504")
    func interimThenNothing() async throws {
        let fixture = try await MisbehavingFixture.start(["UPSTREAM_RESPONSE_TIMEOUT": "2"], accessLog: true)
        defer { fixture.stop() }
        let id = MisbehavingFixture.requestID("1xx-hang")
        let started = ContinuousClock.now
        let exchange = try await fixture.raw(
            "GET /fault/1xx-then-hang HTTP/1.1\r\nHost: gw.test\r\nX-Request-Id: \(id)\r\n\r\n",
            until: { $0.hasCompleteFinalResponse }, timeout: .seconds(40))
        let final = exchange.statusLines.last { !MisbehavingFixture.isInterim($0) }
        #expect(final?.hasPrefix("HTTP/1.1 504") == true, "after \(ContinuousClock.now - started): \(exchange.statusLines), closed: \(exchange.closed)")
        try await fixture.expectServing(after: "1xx-then-hang")
        let line = try await fixture.accessLine(id)
        #expect(line?["status"]?.numberValue?.int64 == 504, "access log: \(line.map { JSONSerializer.string(.object($0)) } ?? "no line")")
    }

    // MARK: Upstream: a stray 101

    @Test("a stray 101 to a request that is no upgrade: 502, and the connection's next bytes are not tunnelled", arguments: ["GET", "OPTIONS"])
    func stray101(method: String) async throws {
        let fixture = try await MisbehavingFixture.start()
        defer { fixture.stop() }
        let marker = "MARKER-AFTER-STRAY-101-\(UUID().uuidString.prefix(8))"
        let port = fixture.port
        let (head, leaked) = try await blocking { () -> (String, String) in
            let client = try RawHTTPClient(port: port, timeout: .seconds(30))
            try client.send("\(method) /fault/stray-101 HTTP/1.1\r\nHost: gw.test\r\n\r\n")
            let first = MisbehavingFixture.receive(from: client.descriptor, until: { $0.hasCompleteFinalResponse || $0.text.contains("\r\n\r\n") }, timeout: .seconds(30))
            // Whatever the gateway did, the client now sends bytes that must not reach the upstream.
            try? client.send(marker + "\r\nGET /tunnelled HTTP/1.1\r\nHost: upstream\r\n\r\n")
            // Bounded settle window: a tunnel would carry these bytes within milliseconds.
            let after = MisbehavingFixture.receive(from: client.descriptor, until: { _ in false }, timeout: .seconds(1))
            return (first.text, after.text)
        }
        #expect(head.hasPrefix("HTTP/1.1 502"), "\(method): the client got \(head.prefix(200).debugDescription)")
        #expect(!leaked.contains("101 Switching"), "\(method): \(leaked.prefix(200))")
        let received = try await fixture.received()
        let tunnelled = received.after101.joined()
        #expect(!tunnelled.contains(marker), "\(method): bytes after the 101 reached the upstream: \(tunnelled.prefix(200).debugDescription)")
        #expect(!received.requests.contains { $0.target.contains("tunnelled") || $0.method.contains("MARKER") })
        try await fixture.expectServing(after: "stray-101 to \(method)")
    }

    // MARK: Upstream: broken bodies

    @Test("a chunked body invalid before its first byte: 502, and the access log says 502")
    func chunkedInvalidBeforeBody() async throws {
        let fixture = try await MisbehavingFixture.start(accessLog: true)
        defer { fixture.stop() }
        let id = MisbehavingFixture.requestID("chunk-size")
        let exchange = try await fixture.raw(
            "GET /fault/chunked-bad-size HTTP/1.1\r\nHost: gw.test\r\nX-Request-Id: \(id)\r\n\r\n",
            until: { $0.hasCompleteFinalResponse })
        #expect(exchange.statusLines.last?.hasPrefix("HTTP/1.1 502") == true, "statuses: \(exchange.statusLines) \(exchange.text.prefix(300).debugDescription)")
        #expect(!exchange.text.contains("hello"), "a body byte of the broken response reached the client")
        try await fixture.expectServing(after: "chunked-bad-size")
        let line = try await fixture.accessLine(id)
        #expect(line?["status"]?.numberValue?.int64 == 502, "access log: \(line.map { JSONSerializer.string(.object($0)) } ?? "no line")")
    }

    @Test("a chunked body that breaks after some bytes: the client connection is closed, the access log claims no clean 200")
    func chunkedBreaksAfterBody() async throws {
        let fixture = try await MisbehavingFixture.start(accessLog: true)
        defer { fixture.stop() }
        let id = MisbehavingFixture.requestID("chunk-break")
        let exchange = try await fixture.raw(
            "GET /fault/chunked-break HTTP/1.1\r\nHost: gw.test\r\nX-Request-Id: \(id)\r\n\r\n",
            until: { _ in false }, timeout: .seconds(20))
        #expect(exchange.closed, "the connection stayed open after a broken body: \(exchange.text.suffix(200).debugDescription)")
        #expect(!exchange.hasCompleteFinalResponse, "the client got what looks like a complete response: \(exchange.text.suffix(200).debugDescription)")
        try await fixture.expectServing(after: "chunked-break")
        let line = try await fixture.accessLine(id)
        let status = line?["status"]?.numberValue?.int64
        let bytes = line?["bytes"]?.numberValue?.int64
        #expect(line != nil, "no access-log line for the broken response")
        // 11 body bytes were relayed before the break; a bare "200" would claim a complete response.
        // Accepted: another status, or `"complete": false`, which marks a response cut short.
        let claimsClean = status == 200 && line?["complete"] != .bool(false)
        #expect(!claimsClean, "the access log claims a clean 200: \(line.map { JSONSerializer.string(.object($0)) } ?? "") (bytes \(bytes ?? -1))")
    }

    @Test("an upstream status outside 100–599 is a 502", arguments: ["600", "999", "99", "abc"])
    func statusOutOfRange(code: String) async throws {
        let fixture = try await MisbehavingFixture.start()
        defer { fixture.stop() }
        let exchange = try await fixture.raw("GET /fault/status-\(code) HTTP/1.1\r\nHost: gw.test\r\n\r\n", until: { $0.hasCompleteFinalResponse })
        #expect(exchange.statusLines.last?.hasPrefix("HTTP/1.1 502") == true, "status \(code): \(exchange.statusLines)")
        try await fixture.expectServing(after: "status-\(code)")
    }

    @Test("bad header names from the upstream: 502 or the field dropped, never a crash",
          arguments: ["space", "tab", "nonascii", "paren", "slash", "quote", "del", "empty"])
    func badUpstreamHeaderName(kind: String) async throws {
        let fixture = try await MisbehavingFixture.start()
        defer { fixture.stop() }
        let exchange = try await fixture.raw("GET /fault/bad-name-\(kind) HTTP/1.1\r\nHost: gw.test\r\n\r\n", until: { $0.hasCompleteFinalResponse })
        let status = exchange.statusLines.last ?? ""
        #expect(status.hasPrefix("HTTP/1.1 502") || status.hasPrefix("HTTP/1.1 200"), "\(kind): \(exchange.statusLines)")
        if status.hasPrefix("HTTP/1.1 200") {
            let head = exchange.text.components(separatedBy: "\r\n\r\n").first ?? ""
            let lines = head.components(separatedBy: "\r\n").dropFirst()
            #expect(!lines.contains { $0.hasPrefix("X-B") || $0.hasPrefix(":") || !$0.contains(":") },
                    "\(kind): the bad field reached the client: \(head.debugDescription)")
        }
        try await fixture.expectServing(after: "bad-name-\(kind)")
    }

    @Test("an upstream that closes early, cuts its head or body, sends a huge head or a slow one: 502/504 or a closed connection")
    func upstreamBreaksOff() async throws {
        // A short response timeout only for the fault that tests it: on a loaded machine a slow
        // peer must not turn the other faults into 504s.
        let fixture = try await MisbehavingFixture.start(["UPSTREAM_RESPONSE_TIMEOUT": "2"])
        defer { fixture.stop() }
        let patient = try await MisbehavingFixture.start(["UPSTREAM_RESPONSE_TIMEOUT": "60"])
        defer { patient.stop() }
        for (fault, expected) in [("close-before-response", "502"), ("close-mid-head", "502"), ("huge-head", "502"), ("slow-head?s=8", "504")] {
            let fixture = expected == "504" ? fixture : patient
            let exchange = try await fixture.raw("GET /fault/\(fault) HTTP/1.1\r\nHost: gw.test\r\n\r\n", until: { $0.hasCompleteFinalResponse }, timeout: .seconds(30))
            #expect(exchange.statusLines.last?.hasPrefix("HTTP/1.1 \(expected)") == true, "\(fault): \(exchange.statusLines)")
            try await fixture.expectServing(after: fault)
        }
        // Content-Length larger than the body, then close: the client must not see a complete response.
        let short = try await fixture.raw("GET /fault/short-body HTTP/1.1\r\nHost: gw.test\r\n\r\n", until: { _ in false }, timeout: .seconds(20))
        #expect(short.closed, "the connection stayed open after a short body")
        #expect(!short.hasCompleteFinalResponse || short.statusLines.last?.hasPrefix("HTTP/1.1 502") == true,
                "a truncated body looked complete: \(short.text.suffix(200).debugDescription)")
        try await fixture.expectServing(after: "short-body")
    }

    // MARK: Forged X-Authz-* and request trailers

    @Test("a client's X-Authz-* never reaches the upstream without a hook")
    func spoofedAuthzWithoutHook() async throws {
        let fixture = try await MisbehavingFixture.start()
        defer { fixture.stop() }
        let response = try await fixture.get("/spoof-check", headers: MisbehavingFixture.spoofed)
        #expect(response.status == 200)
        let upstream = try #require(try await fixture.received().requests.last { $0.target == "/spoof-check" })
        #expect(!upstream.headers.contains { $0[0].lowercased().hasPrefix("x-authz") || $0[1].contains("SPOOFED") },
                "forged X-Authz-* reached the upstream: \(upstream.headers.filter { $0[0].lowercased().hasPrefix("x-authz") })")
    }

    @Test("with a hook only the hook's X-Authz-* arrive, never the client's")
    func spoofedAuthzWithHook() async throws {
        let fixture = try await MisbehavingFixture.start(hook: true)
        defer { fixture.stop() }
        var headers = MisbehavingFixture.spoofed
        headers["Authorization"] = "Bearer \(try MisbehavingFixture.token(fault: "authz-ok"))"
        let response = try await fixture.get("/spoof-check", headers: headers)
        #expect(response.status == 200)
        let upstream = try #require(try await fixture.received().requests.last { $0.target == "/spoof-check" })
        #expect(upstream.values("x-authz-user") == ["hook-user"], "\(upstream.headers)")
        #expect(upstream.values("x-authz-roles") == ["reader"], "\(upstream.headers)")
        #expect(!upstream.headers.contains { $0[1].contains("SPOOFED") }, "a forged value reached the upstream: \(upstream.headers)")
        #expect(upstream.values("x-authz-extra").isEmpty)
    }

    @Test("request trailers naming identity or framing fields never reach the upstream verbatim")
    func requestTrailers() async throws {
        let fixture = try await MisbehavingFixture.start()
        defer { fixture.stop() }
        let request = "POST /trailer-check HTTP/1.1\r\nHost: gw.test\r\nTransfer-Encoding: chunked\r\nTrailer: X-Forwarded-User\r\n\r\n"
            + "5\r\nhello\r\n0\r\nX-Forwarded-User: mallory-trailer\r\nX-AppNative-User-Id: mallory-trailer\r\nContent-Length: 999\r\n\r\n"
        let exchange = try await fixture.raw(request, until: { $0.hasCompleteFinalResponse })
        let status = exchange.statusLines.last ?? ""
        #expect(status.hasPrefix("HTTP/1.1 200") || status.hasPrefix("HTTP/1.1 400"), "\(exchange.statusLines)")
        let received = try await fixture.received()
        for upstream in received.requests where upstream.target == "/trailer-check" {
            let fields = upstream.headers + (upstream.trailers ?? [])
            #expect(!fields.contains { $0[1].contains("mallory-trailer") || $0[1] == "999" },
                    "a request trailer reached the upstream: headers \(upstream.headers) trailers \(upstream.trailers ?? [])")
            #expect(upstream.bodyLength == 5)
        }
        try await fixture.expectServing(after: "request trailers")
    }

    // MARK: The authorization hook misbehaves

    @Test("bad header names from the hook are dropped (or the request refused 502/503), never a crash",
          arguments: ["space", "tab", "nonascii", "paren", "slash", "quote", "del"])
    func hookBadHeaderName(kind: String) async throws {
        let fixture = try await MisbehavingFixture.start(hook: true)
        defer { fixture.stop() }
        let token = try MisbehavingFixture.token(fault: "authz-bad-name-\(kind)")
        let response = try await fixture.raw(
            "GET /hook-check HTTP/1.1\r\nHost: gw.test\r\nAuthorization: Bearer \(token)\r\n\r\n", until: { $0.hasCompleteFinalResponse })
        let status = response.statusLines.last ?? ""
        #expect(["200", "502", "503"].contains { status.hasPrefix("HTTP/1.1 \($0)") }, "\(kind): \(response.statusLines)")
        if status.hasPrefix("HTTP/1.1 200") {
            let upstream = try #require(try await fixture.received().requests.last { $0.target == "/hook-check" })
            #expect(upstream.values("x-authz-user") == ["hook-user"], "\(kind): \(upstream.headers)")
            #expect(!upstream.headers.contains { $0[0].lowercased().hasPrefix("x-authz-") && !MisbehavingFixture.isToken($0[0]) },
                    "\(kind): a bad field name reached the upstream: \(upstream.headers)")
            #expect(!upstream.headers.contains { $0[0].lowercased().hasPrefix("x-authz-a") }, "\(kind): \(upstream.headers)")
        }
        try await fixture.expectServing(after: "authz-bad-name-\(kind)")
    }

    @Test("X-Authz-User values with CR, LF, NUL or control bytes never reach the upstream as such",
          arguments: ["cr", "lf", "nul", "ctl", "del"])
    func hookBadHeaderValue(kind: String) async throws {
        let fixture = try await MisbehavingFixture.start(hook: true)
        defer { fixture.stop() }
        let token = try MisbehavingFixture.token(fault: "authz-user-\(kind)")
        let response = try await fixture.raw(
            "GET /hook-check HTTP/1.1\r\nHost: gw.test\r\nAuthorization: Bearer \(token)\r\n\r\n", until: { $0.hasCompleteFinalResponse })
        let status = response.statusLines.last ?? ""
        #expect(["200", "502", "503"].contains { status.hasPrefix("HTTP/1.1 \($0)") }, "\(kind): \(response.statusLines)")
        let received = try await fixture.received()
        for upstream in received.requests where upstream.target == "/hook-check" {
            #expect(!upstream.headers.contains { $0[0].lowercased() == "x-authz-injected" }, "\(kind): a field was injected: \(upstream.headers)")
            for value in upstream.values("x-authz-user") {
                #expect(!value.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7f },
                        "\(kind): a control byte reached the upstream: \(value.debugDescription)")
            }
        }
        try await fixture.expectServing(after: "authz-user-\(kind)")
    }

    @Test("a slow, huge, malformed, closing or failing hook: 503 (within a bounded time), and the gateway keeps serving")
    func hookFailures() async throws {
        let fixture = try await MisbehavingFixture.start(hook: true)
        defer { fixture.stop() }
        for fault in ["authz-slow", "authz-huge-headers", "authz-huge-body", "authz-bad-status", "authz-close-early", "authz-500"] {
            let token = try MisbehavingFixture.token(fault: fault)
            let (response, elapsed) = try await fixture.timedRaw(
                "GET /hook-check HTTP/1.1\r\nHost: gw.test\r\nAuthorization: Bearer \(token)\r\n\r\n",
                until: { $0.hasCompleteFinalResponse }, timeout: .seconds(30))
            #expect(response.statusLines.last?.hasPrefix("HTTP/1.1 503") == true, "\(fault): \(response.statusLines) after \(elapsed)")
            // The hook's budget is 2 s; 10 s is generous and still far from the peer's 6 s stall + more.
            #expect(elapsed < .seconds(10), "\(fault): answered after \(elapsed)")
            try await fixture.expectServing(after: fault)
        }
    }

    // MARK: The key server misbehaves

    @Test("the key server fails the first fetches: /readyz becomes 200 without any token request")
    func keyServerRecovers() async throws {
        let fixture = try await MisbehavingFixture.start(jwks: "jwks-fail-first", peerArguments: ["--jwks-failures", "3"], protected: true)
        defer { fixture.stop() }
        let adminPort = fixture.gateway.adminPort
        var status = 0
        _ = await eventually(timeout: .seconds(60), pollingEvery: .milliseconds(250)) {
            status = (try? await blocking { try RawHTTPClient.get(port: adminPort, "/readyz").status }) ?? 0
            return status == 200
        }
        let fetches = try await fixture.received().counts["/fault/jwks-fail-first"] ?? 0
        #expect(status == 200, "/readyz still \(status) after 60 s; the key server was asked \(fetches) times")
        #expect(fetches >= 4, "\(fetches) fetches")
        if status == 200 {
            let token = try MisbehavingFixture.token(fault: "none")
            let response = try await fixture.get("/signed-in", headers: ["Authorization": "Bearer \(token)"])
            #expect(response.status == 200)
        }
        #expect(fixture.isRunning)
    }

    @Test("no key cached: a token request gets 503 quickly while the key server fails or hangs",
          arguments: [("jwks-fail-first", ["--jwks-failures", "1000000"]), ("jwks-hang", [])])
    func noKeyYet(jwks: String, peerArguments: [String]) async throws {
        let fixture = try await MisbehavingFixture.start(jwks: jwks, peerArguments: peerArguments, protected: true)
        defer { fixture.stop() }
        let token = try MisbehavingFixture.token(fault: "none")
        for attempt in 0..<3 {
            let port = fixture.port
            let (response, elapsed) = try await timedBlocking {
                try RawHTTPClient.request(
                    port: port, method: "GET", "/signed-in", headers: ["Authorization": "Bearer \(token)"], timeout: .seconds(30))
            }
            #expect(response.status == 503, "\(jwks) #\(attempt): \(response.status)")
            // Generous next to the 10 s reload deadline: the caller must not wait for it.
            #expect(elapsed < .seconds(5), "\(jwks) #\(attempt): 503 only after \(elapsed)")
        }
        let ready = try await blocking { [adminPort = fixture.gateway.adminPort] in try RawHTTPClient.get(port: adminPort, "/readyz").status }
        #expect(ready == 503)
        try await fixture.expectServing(after: jwks)
    }

    @Test("a huge, malformed, mistyped or non-JSON key set is refused: readiness stays 503, the process serves on",
          arguments: ["jwks-huge", "jwks-malformed", "jwks-wrong-types", "jwks-keys-not-array", "jwks-wrong-content"])
    func keySetRefused(jwks: String) async throws {
        let fixture = try await MisbehavingFixture.start(jwks: jwks, protected: true)
        defer { fixture.stop() }
        let token = try MisbehavingFixture.token(fault: "none")
        // A token request waits for (or starts) a fetch of the bad document, so it has been judged.
        let response = try await fixture.get("/signed-in", headers: ["Authorization": "Bearer \(token)"], timeout: .seconds(30))
        #expect(response.status == 503, "\(jwks): \(response.status) \(response.bodyText.prefix(200))")
        let fetches = try await fixture.received().counts["/fault/\(jwks)"] ?? 0
        #expect(fetches >= 1)
        let adminPort = fixture.gateway.adminPort
        for _ in 0..<3 {
            let ready = try await blocking { try RawHTTPClient.get(port: adminPort, "/readyz").status }
            #expect(ready == 503, "\(jwks): /readyz \(ready)")
        }
        try await fixture.expectServing(after: jwks)
    }
}

// MARK: - Fixture

/// misbehaving_peer.py as upstream (and, when asked, as hook and key server) with a gateway in front.
final class MisbehavingFixture: Sendable {
    let peer: LoopbackPeer
    let gateway: GatewayProcess
    /// Set when the gateway is protected (PUBLIC_PATHS=/public): good requests need a token.
    let goodHeaders: [String: String]
    private let accessLog: AccessLogCollector?

    static let okBody = #"{"ok":true}"#

    var port: Int { gateway.port }
    var peerPort: Int { peer.port }

    /// - Parameters:
    ///   - jwks: the peer's key-server fault serving ENTRA_JWKS_URL (`jwks-ok`: the dev key set).
    ///   - hook: AUTHORIZE_URL at the peer (the fault is chosen by the token's email), cache off.
    ///   - protected: only /public is public (with `hook`, always).
    static func start(
        _ environment: [String: String] = [:], jwks: String = "jwks-ok", peerArguments: [String] = [],
        hook: Bool = false, protected: Bool = false, accessLog: Bool = false
    ) async throws -> MisbehavingFixture {
        let jwksFile = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json")
        try ProxyFixture.devProvider().jwksDocument.write(to: jwksFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: jwksFile) }
        let peer = try await LoopbackPeer.start(
            ProcessRunner.python, [ProxyFixture.root + "/Tests/Peers/misbehaving_peer.py", "--jwks", jwksFile.path] + peerArguments)
        let isProtected = protected || hook
        var env = [
            "UPSTREAM_URL": "http://127.0.0.1:\(peer.port)", "EVENT_LOOPS": "2",
            "ENTRA_TENANT_ID": DevIdentityProvider.tenantID, "ENTRA_AUDIENCE": DevIdentityProvider.audience,
            "ENTRA_JWKS_URL": "http://127.0.0.1:\(peer.port)/fault/\(jwks)",
            "PUBLIC_PATHS": isProtected ? "/public" : "/", "ACCESS_LOG": accessLog ? "true" : "false",
        ]
        if hook {
            env["AUTHORIZE_URL"] = "http://127.0.0.1:\(peer.port)/authz"
            env["AUTHORIZE_CACHE_SECONDS"] = "1,1"
        }
        env.merge(environment) { $1 }
        do {
            let gateway = try await GatewayProcess.start(environment: env)
            var good = [String: String]()
            if isProtected && jwks == "jwks-ok" { good["Authorization"] = "Bearer \(try token(fault: hook ? "authz-ok" : "none"))" }
            return MisbehavingFixture(
                peer: peer, gateway: gateway, goodHeaders: good, accessLog: accessLog ? AccessLogCollector(gateway) : nil)
        } catch {
            peer.stop()
            throw error
        }
    }

    private init(peer: LoopbackPeer, gateway: GatewayProcess, goodHeaders: [String: String], accessLog: AccessLogCollector?) {
        self.peer = peer
        self.gateway = gateway
        self.goodHeaders = goodHeaders
        self.accessLog = accessLog
    }

    func stop() {
        if let accessLog {
            // Kill first and let the reader see the end of the pipe before the descriptor is closed.
            gateway.send(signal: SIGKILL)
            accessLog.waitForEnd()
        }
        gateway.stop()
        peer.stop()
    }

    /// An ID token for a fresh user (its own object id, so no cached hook decision applies)
    /// whose email names the hook fault the peer plays.
    static func token(fault: String) throws -> String {
        var user = DevIdentityProvider.User()
        user.objectID = UUID().uuidString.lowercased()
        user.email = "fault+\(fault)@example.com"
        return try ProxyFixture.devProvider().token(for: user, issuedAt: Date().timeIntervalSince1970)
    }

    static func requestID(_ label: String) -> String { "mb-\(label)-\(UUID().uuidString.prefix(8).lowercased())" }

    static let spoofed = ["X-Authz-User": "SPOOFED", "X-Authz-Roles": "SPOOFED-admin", "x-authz-extra": "SPOOFED", "X-AUTHZ-USER-ID": "SPOOFED"]

    static func isInterim(_ statusLine: String) -> Bool {
        let parts = statusLine.split(separator: " ")
        return parts.count >= 2 && parts[1].count == 3 && parts[1].hasPrefix("1") && parts[1] != "101"
    }

    /// RFC 9110 token characters.
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "!#$%&'*+-.^_`|~".unicodeScalars.contains($0))
        }
    }

    /// Whether the gateway process exists and is not a zombie.
    var isRunning: Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(gateway.pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first
        return state != nil && state != "Z" && state != "X"
    }

    /// The key property: after a fault the process is alive and a good request gets 200.
    func expectServing(after fault: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws {
        #expect(isRunning, "the gateway died after \(fault): \(gateway.logs.suffix(1500))", sourceLocation: sourceLocation)
        // A protected gateway without a usable key set serves its public paths only.
        let response = try? await get(goodHeaders.isEmpty ? "/public/after-fault" : "/after-fault", headers: goodHeaders)
        #expect(response?.status == 200, "after \(fault) a good request got \(response.map { "\($0.status)" } ?? "no response")",
                sourceLocation: sourceLocation)
    }

    func get(_ target: String, headers: [String: String] = [:], timeout: Duration = .seconds(20)) async throws -> RawHTTPClient.Response {
        let port = port
        return try await blocking {
            let client = try RawHTTPClient(port: port, timeout: timeout)
            var request = "GET \(target) HTTP/1.1\r\nHost: gw.test\r\n"
            for (name, value) in headers { request += "\(name): \(value)\r\n" }
            try client.send(request + "\r\n")
            return try client.readResponse()
        }
    }

    /// Sends `request` on a fresh connection and collects the raw answer until `until` holds,
    /// the gateway closes, or `timeout` passes.
    func raw(_ request: String, until: @escaping @Sendable (RawExchange) -> Bool, timeout: Duration = .seconds(20)) async throws -> RawExchange {
        let port = port
        return try await blocking {
            let client = try RawHTTPClient(port: port, timeout: .seconds(1))
            try client.send(request)
            return Self.receive(from: client.descriptor, until: until, timeout: timeout)
        }
    }

    /// `raw`, with how long the exchange itself took (not the wait for a dispatch thread).
    func timedRaw(_ request: String, until: @escaping @Sendable (RawExchange) -> Bool, timeout: Duration) async throws -> (RawExchange, Duration) {
        let port = port
        return try await timedBlocking {
            let client = try RawHTTPClient(port: port, timeout: .seconds(1))
            try client.send(request)
            return Self.receive(from: client.descriptor, until: until, timeout: timeout)
        }
    }

    func raw(_ request: String, until marker: String, timeout: Duration = .seconds(10)) async throws -> RawExchange {
        try await raw(request, until: { $0.text.contains(marker) }, timeout: timeout)
    }

    /// Reads from `descriptor` (whose receive timeout is short) until `until`, end of stream or `timeout`.
    static func receive(from descriptor: Int32, until: (RawExchange) -> Bool, timeout: Duration) -> RawExchange {
        var exchange = RawExchange()
        var shortTimeout = timeval(tv_sec: 0, tv_usec: 200_000)
        unsafe setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &shortTimeout, socklen_t(MemoryLayout<timeval>.size))
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 65536)
        while ContinuousClock.now < deadline, !until(exchange) {
            let count = unsafe recv(descriptor, &buffer, buffer.count, 0)
            if count > 0 {
                exchange.bytes += buffer[0..<count]
            } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                exchange.closed = true
                break
            }
        }
        return exchange
    }

    /// What the peer received (its /__received).
    func received() async throws -> PeerRecord {
        let peerPort = peerPort
        return try await blocking {
            let response = try RawHTTPClient.get(port: peerPort, "/__received")
            return try JSONDecoder().decode(PeerRecord.self, from: Data(response.body))
        }
    }

    /// The access-log line of `requestID`, waiting (bounded) for it; good requests with their
    /// own ids are sent meanwhile, so the wait never depends on a line that may not come.
    func accessLine(_ requestID: String) async throws -> JSONObject? {
        guard let accessLog else { return nil }
        for round in 0..<20 {
            if let line = accessLog.line(requestID) { return line }
            let sentinel = Self.requestID("sentinel-\(round)")
            var headers = goodHeaders
            headers["X-Request-Id"] = sentinel
            _ = try? await get(goodHeaders.isEmpty ? "/public/sentinel" : "/sentinel", headers: headers)
            _ = await eventually(timeout: .seconds(5), pollingEvery: .milliseconds(50)) { accessLog.line(sentinel) != nil }
            if let line = accessLog.line(requestID) { return line }
            try await Task.sleep(for: .milliseconds(250))
        }
        return nil
    }
}

/// Reads the gateway's standard output (JSON access-log lines) on a thread of its own until the
/// pipe ends, so the gateway never blocks on a full pipe and tests look lines up by request id.
final class AccessLogCollector: Sendable {
    private let lines = Locked<[String: JSONObject]>([:])
    private let ended = DispatchSemaphore(value: 0)

    init(_ gateway: GatewayProcess) {
        DispatchQueue.global().async { [lines, ended] in
            while let text = gateway.nextOutputLine() {
                guard let object = try? JSONParser().parse(text).objectValue, object["type"]?.stringValue == "access",
                    let id = object["request_id"]?.stringValue
                else { continue }
                lines.withLock { $0[id] = object }
            }
            ended.signal()
        }
    }

    func line(_ requestID: String) -> JSONObject? { lines.withLock { $0[requestID] } }

    /// Waits (bounded) for the reader to see the end of the gateway's output.
    func waitForEnd() { _ = ended.wait(timeout: .now() + 10) }
}

/// The raw bytes a client received, read as Latin-1 text.
struct RawExchange: Sendable {
    var bytes: [UInt8] = []
    var closed = false

    var text: String { String(bytes.map { Character(Unicode.Scalar($0)) }) }

    /// The status lines of every response head received, interim ones included, in order.
    var statusLines: [String] {
        var result: [String] = []
        var rest = Substring(text)
        while let range = rest.range(of: "HTTP/1.") {
            // "\r\n" is one Character in Swift, so the line ends where that string starts.
            let head = rest[range.lowerBound...]
            let line = head.range(of: "\r\n").map { head[..<$0.lowerBound] } ?? head
            result.append(String(line))
            let status = line.split(separator: " ").dropFirst().first.map(String.init) ?? ""
            // Skip to the end of this head; an interim head is followed by another head.
            guard let end = rest[range.lowerBound...].range(of: "\r\n\r\n") else { break }
            rest = rest[end.upperBound...]
            if !(status.count == 3 && status.hasPrefix("1") && status != "101") {
                break
            }
        }
        return result
    }

    /// Whether a final (non-1xx) head and, by Content-Length or chunked framing, its whole body arrived.
    var hasCompleteFinalResponse: Bool {
        let text = text
        var rest = Substring(text)
        while let headEnd = rest.range(of: "\r\n\r\n") {
            let head = rest[..<headEnd.lowerBound]
            let status = head.split(separator: " ").dropFirst().first.map(String.init) ?? ""
            let body = rest[headEnd.upperBound...]
            if status.count == 3 && status.hasPrefix("1") && status != "101" {
                rest = body
                continue
            }
            let fields = head.lowercased().components(separatedBy: "\r\n")
            if let length = fields.first(where: { $0.hasPrefix("content-length:") }).flatMap({ Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) }) {
                return body.utf8.count >= length
            }
            if fields.contains(where: { $0.hasPrefix("transfer-encoding:") && $0.contains("chunked") }) {
                return body.hasSuffix("\r\n0\r\n\r\n") || body.hasPrefix("0\r\n\r\n")
            }
            return status == "204" || status == "304" || status == "101" || closed
        }
        return false
    }
}

/// The peer's /__received.
struct PeerRecord: Decodable, Sendable {
    struct Request: Decodable, Sendable {
        let method: String
        let target: String
        let version: String
        let headers: [[String]]
        let trailers: [[String]]?
        let bodyLength: Int

        enum CodingKeys: String, CodingKey {
            case method, target, version, headers, trailers
            case bodyLength = "body_length"
        }

        func values(_ name: String) -> [String] {
            headers.filter { $0[0].lowercased() == name.lowercased() }.map { $0[1] }
        }
    }

    let requests: [Request]
    let after101: [String]
    let counts: [String: Int]

    enum CodingKeys: String, CodingKey {
        case requests, counts
        case after101 = "after_101"
    }
}
