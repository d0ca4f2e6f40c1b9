import AppNativeDevPeers
import AppNativeTesting
import Foundation
import Glibc
import Testing

/// HTTP/2 behaviours beyond a request and its answer, through the real gateway binary with
/// Python's h2 as the client (Tests/Peers/h2_features.py): WebSockets over HTTP/2 (RFC 8441),
/// credential expiry on long-lived streams, per-stream timeouts, 1xx and SIGTERM. Each has its
/// HTTP/1.1 counterpart in `IdentityTests`, `TimeoutTests`, `MisbehavingPeerTests` or
/// `HTTP2Tests`.
@Suite("HTTP/2 features", .serialized)
struct HTTP2FeatureTests {
    static let root = ProcessRunner.repositoryRoot()
    static let ca = root + "/keys/test/ca.pem"

    /// Runs a scenario of the h2 client; its last output line is its JSON report.
    static func client(_ scenario: String, port: Int, _ extra: [String] = []) async throws -> [String: Any] {
        let output = try await ProcessRunner.run(ProcessRunner.python, [root + "/Tests/Peers/h2_features.py", scenario, String(port)] + extra)
        let line = output.stdout.split(separator: "\n").last.map(String.init) ?? ""
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            Issue.record("no report from \(scenario): \(output.stdout) \(output.stderr.suffix(1500))")
            return [:]
        }
        return object
    }

    static func token(lifetime: Duration = .seconds(3600)) throws -> String {
        try ProxyFixture.devProvider().token(issuedAt: Date().timeIntervalSince1970, lifetime: lifetime)
    }

    /// The upstream peer and a gateway in front of its WebSocket listener (`upstreamIsWebSocket`)
    /// or its HTTP listener, protected (no public path).
    static func gateway(upstreamIsWebSocket: Bool, _ extra: [String: String] = [:]) async throws -> (LoopbackPeer, GatewayProcess) {
        let jwksFile = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json")
        try ProxyFixture.devProvider().jwksDocument.write(to: jwksFile, atomically: true, encoding: .utf8)
        let upstream = try await LoopbackPeer.start(ProcessRunner.python, [root + "/Tests/Peers/upstream_peer.py", "--jwks", jwksFile.path])
        do {
            var environment = [
                "UPSTREAM_URL": "http://127.0.0.1:\(upstreamIsWebSocket ? upstream.ports[1] : upstream.port)",
                "ENTRA_TENANT_ID": DevIdentityProvider.tenantID, "ENTRA_AUDIENCE": DevIdentityProvider.audience,
                "ENTRA_JWKS_URL": "http://127.0.0.1:\(upstream.port)/test-jwks",
            ]
            environment.merge(extra) { $1 }
            return (upstream, try await GatewayProcess.start(environment: environment))
        } catch {
            upstream.stop()
            throw error
        }
    }

    // MARK: WebSocket over HTTP/2

    @Test(
        "WebSocket over HTTP/2 (RFC 8441): SETTINGS_ENABLE_CONNECT_PROTOCOL, echo through the upstream, 401 without a credential, the Origin rule for the cookie, other protocols 501",
        arguments: [false, true])
    func webSocket(overTLS: Bool) async throws {
        var extra = ["SESSION_SECRET": ProxyFixture.sessionSecret, "SESSION_SECURE": "false"]
        var tls: [String] = []
        if overTLS {
            extra["TLS_CERT_FILE"] = Self.root + "/keys/test/localhost.pem"
            extra["TLS_KEY_FILE"] = Self.root + "/keys/test/localhost-key.pem"
            tls = ["--tls", Self.ca]
        }
        let (upstream, gateway) = try await Self.gateway(upstreamIsWebSocket: true, extra)
        defer {
            gateway.stop()
            upstream.stop()
        }
        let port = gateway.port
        let token = try Self.token()

        let echo = try await Self.client("websocket", port: port, tls + ["--path", "/socket", "--header", "authorization: Bearer \(token)"])
        #expect(echo["connect_protocol"] as? Int == 1, "\(echo)")
        #expect(echo["status"] as? Int == 200, "\(echo)")
        #expect(echo["echo"] as? String == "hello over h2", "\(echo)")
        // A message larger than every window: flow control both ways through the tunnel.
        let large = try await Self.client(
            "websocket", port: port, tls + ["--path", "/socket", "--header", "authorization: Bearer \(token)", "--message-bytes", "600000"])
        #expect(large["echo_bytes"] as? Int == 600_000 && large["echo_intact"] as? Bool == true, "\(large)")
        let headers = echo["headers"] as? [String: String] ?? [:]
        #expect(headers["sec-websocket-accept"] == nil && headers["upgrade"] == nil, "\(headers)")
        // The cookie exchange happens on the upgrade as on any request with a token.
        let cookie = try #require(headers["set-cookie"]?.split(separator: ";").first.map(String.init), "\(headers)")

        let anonymous = try await Self.client("websocket", port: port, tls + ["--path", "/socket"])
        #expect(anonymous["status"] as? Int == 401, "\(anonymous)")

        // A cookie-authenticated WebSocket must come from an allowed Origin (its own host here).
        let noOrigin = try await Self.client("websocket", port: port, tls + ["--path", "/socket", "--header", "cookie: \(cookie)"])
        #expect(noOrigin["status"] as? Int == 403, "\(noOrigin)")
        let foreign = try await Self.client(
            "websocket", port: port, tls + ["--path", "/socket", "--header", "cookie: \(cookie)", "--header", "origin: https://evil.example"])
        #expect(foreign["status"] as? Int == 403, "\(foreign)")
        let scheme = overTLS ? "https" : "http"
        let sameOrigin = try await Self.client(
            "websocket", port: port,
            tls + ["--path", "/socket", "--header", "cookie: \(cookie)", "--header", "origin: \(scheme)://localhost:\(port)"])
        #expect(sameOrigin["status"] as? Int == 200 && sameOrigin["echo"] as? String == "hello over h2", "\(sameOrigin)")

        // Protocols other than websocket, and a plain CONNECT, are not implemented.
        let other = try await Self.client("connect", port: port, tls + ["--protocol", "connect-udp", "--header", "authorization: Bearer \(token)"])
        #expect(other["status"] as? Int == 501, "\(other)")
        let plain = try await Self.client("connect", port: port, tls + ["--protocol", "", "--header", "authorization: Bearer \(token)"])
        #expect(plain["status"] as? Int == 501, "\(plain)")
    }

    /// Beside `MisbehavingPeerTests`' stray 101: here the 101 even names websocket, but the
    /// client cannot check its Sec-WebSocket-Accept over HTTP/2, so the gateway does.
    @Test("WebSocket over HTTP/2: an upstream 101 without the right Sec-WebSocket-Accept, or an answer that does not switch, is 502")
    func webSocketUpgradeNotCompleted() async throws {
        let peer = try await LoopbackPeer.start(ProcessRunner.python, [Self.root + "/Tests/Peers/misbehaving_peer.py"])
        defer { peer.stop() }
        let gateway = try await GatewayProcess.start(environment: ProxyFixture.publicEnvironment(["UPSTREAM_URL": "http://127.0.0.1:\(peer.port)"]))
        defer { gateway.stop() }
        let stray = try await Self.client("websocket", port: gateway.port, ["--path", "/fault/stray-101"])
        #expect(stray["status"] as? Int == 502, "\(stray)")
        let plain = try await Self.client("websocket", port: gateway.port, ["--path", "/fault/early-hints"])
        #expect(plain["status"] as? Int == 502, "\(plain)")
        let after = try await ProcessRunner.run("/usr/bin/curl", ["-sS", "--http2-prior-knowledge", "http://127.0.0.1:\(gateway.port)/fault/early-hints"])
        #expect(after.status == 0, "\(after.stderr)")
    }

    /// Beside `IdentityTests.webSocketEndsWithCredential`.
    @Test("a WebSocket over HTTP/2 opened with a token gets the 4401 close frame, then END_STREAM, when the token expires")
    func webSocketEndsWithCredential() async throws {
        let (upstream, gateway) = try await Self.gateway(
            upstreamIsWebSocket: true, ["CREDENTIAL_EXPIRY_GRACE": "0", "CLOCK_SKEW_LEEWAY": "0"])
        defer {
            gateway.stop()
            upstream.stop()
        }
        // Long enough for a loaded machine to start the client and finish the handshake before it expires.
        let token = try Self.token(lifetime: .seconds(10))
        let report = try await Self.client(
            "websocket", port: gateway.port, ["--path", "/socket", "--header", "authorization: Bearer \(token)", "--wait-close", "45"])
        #expect(report["echo"] as? String == "hello over h2", "\(report)")
        let close = report["close"] as? [Any] ?? []
        #expect(close.first as? Int == 4401 && close.last as? String == "credential expired", "\(report)")
        #expect(report["ended"] as? Bool == true, "\(report)")
    }

    /// Beside `IdentityTests.eventStreamEndsWithCredential`.
    @Test("an event stream over HTTP/2 opened with a token ends with END_STREAM when the token expires")
    func eventStreamEndsWithCredential() async throws {
        let (upstream, gateway) = try await Self.gateway(
            upstreamIsWebSocket: false, ["CREDENTIAL_EXPIRY_GRACE": "0", "CLOCK_SKEW_LEEWAY": "0"])
        defer {
            gateway.stop()
            upstream.stop()
        }
        let token = try Self.token(lifetime: .seconds(10))
        // /sse sends its first event, then holds the stream open for 30 s unless released.
        let report = try await Self.client(
            "event-stream", port: gateway.port,
            ["--path", "/sse", "--header", "authorization: Bearer \(token)", "--header", "accept: text/event-stream", "--wait", "45"])
        let body = report["body"] as? String ?? ""
        #expect(report["status"] as? Int == 200, "\(report)")
        #expect(report["ended"] as? Bool == true && report["reset"] == nil, "\(report)")
        #expect(body.contains("first") && !body.contains("second"), "\(report)")
    }

    // MARK: Per-stream timeouts

    /// Beside `TimeoutTests`' body timeout over HTTP/1.1.
    @Test("a request body that stalls on one stream is answered 408 after BODY_IDLE_TIMEOUT")
    func stalledBody() async throws {
        let fixture = try await ProxyFixture.start(["BODY_IDLE_TIMEOUT": "2"])
        defer { fixture.stop() }
        let report = try await Self.client("stalled-body", port: fixture.port, ["--path", "/echo/stall", "--wait", "40"])
        #expect(report["status"] as? Int == 408, "\(report)")
        let after = try await ProcessRunner.run("/usr/bin/curl", ["-sS", "--http2-prior-knowledge", "http://127.0.0.1:\(fixture.port)/echo/after"])
        #expect(after.stdout.contains("/echo/after"), "\(after.stdout) \(after.stderr)")
    }

    /// The upstream's /early answers before the request body ends: past its head the 408 cannot
    /// be sent, so the stream is reset, as an HTTP/1.1 connection is closed.
    @Test("a request body that stalls after its response started is reset (RST_STREAM) after BODY_IDLE_TIMEOUT; the connection serves a new stream")
    func stalledBodyAfterResponse() async throws {
        let fixture = try await ProxyFixture.start(["BODY_IDLE_TIMEOUT": "1"])
        defer { fixture.stop() }
        let report = try await Self.client("stalled-body-answered", port: fixture.port, ["--path", "/early", "--after", "/echo/after", "--wait", "40"])
        #expect(report["status"] as? Int == 200, "\(report)")
        #expect(report["reset"] as? Int == 2, "\(report)")
        #expect(report["ended"] == nil, "\(report)")
        #expect(report["after"] as? Int == 200 && report["after_ended"] as? Bool == true, "\(report)")
        #expect(report["closed"] as? Bool == false, "\(report)")
    }

    @Test("a reader that never opens its window: buffering stays bounded and WRITE_TIMEOUT resets the stream")
    func stalledReader() async throws {
        let fixture = try await ProxyFixture.start(["WRITE_TIMEOUT": "3"])
        defer { fixture.stop() }
        let pid = fixture.gateway.pid
        let before = Self.residentBytes(pid)
        // 200 MB from the upstream toward a client whose window is one byte.
        async let report = Self.client("stalled-reader", port: fixture.port, ["--path", "/big?n=200000000", "--wait", "40"])
        var peak = before
        // Sampled while the client runs (bounded: the client gives up after its own deadline).
        let sampling = ContinuousClock.now
        while ContinuousClock.now - sampling < .seconds(8) {
            peak = max(peak, Self.residentBytes(pid))
            try await Task.sleep(for: .milliseconds(100))
        }
        let result = try await report
        #expect(result["status"] as? Int == 200, "\(result)")
        #expect(result["reset"] as? Int == 8, "\(result)")
        // The stream's buffer (64 KiB) and the relay's, never the body.
        #expect(peak - before < 32 << 20, "RSS grew by \(peak - before) bytes")
        let after = try await ProcessRunner.run("/usr/bin/curl", ["-sS", "--http2-prior-knowledge", "http://127.0.0.1:\(fixture.port)/echo/after"])
        #expect(after.stdout.contains("/echo/after"), "\(after.stdout) \(after.stderr)")
    }

    static func residentBytes(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return 0 }
        return kilobytes * 1024
    }

    // MARK: 1xx

    /// Beside `ProxyTests`' `100 Continue` over HTTP/1.1: the gateway's own, sent when the
    /// handler reads the body.
    @Test("expect: 100-continue over HTTP/2 gets the gateway's 100 before the body is sent")
    func continueBeforeBody() async throws {
        let fixture = try await ProxyFixture.start()
        defer { fixture.stop() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("h2-continue-\(UUID().uuidString)")
        try Data(repeating: 0x61, count: 300_000).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try await ProcessRunner.run(
            "/usr/bin/curl",
            ["-sS", "-v", "--http2-prior-knowledge", "-H", "Expect: 100-continue", "--data-binary", "@" + file.path,
             "http://127.0.0.1:\(fixture.port)/echo/continue"])
        let statuses = output.stderr.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("< HTTP/2 ") }.map(String.init)
        #expect(statuses.first?.hasPrefix("< HTTP/2 100") == true, "\(statuses) \(output.stderr.suffix(800))")
        #expect(statuses.last?.hasPrefix("< HTTP/2 200") == true, "\(statuses)")
        #expect(output.stdout.contains("\"body_length\": 300000"), "\(output.stdout.prefix(300))")
    }

    /// Beside `MisbehavingPeerTests.earlyHints`.
    @Test("a 103 Early Hints reaches an HTTP/2 client before the 200")
    func earlyHints() async throws {
        let peer = try await LoopbackPeer.start(ProcessRunner.python, [Self.root + "/Tests/Peers/misbehaving_peer.py"])
        defer { peer.stop() }
        let gateway = try await GatewayProcess.start(environment: ProxyFixture.publicEnvironment(["UPSTREAM_URL": "http://127.0.0.1:\(peer.port)"]))
        defer { gateway.stop() }
        let output = try await ProcessRunner.run(
            "/usr/bin/curl", ["-sS", "-v", "--http2-prior-knowledge", "-o", "/dev/null", "http://127.0.0.1:\(gateway.port)/fault/early-hints"])
        let statuses = output.stderr.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("< HTTP/2 ") }.map(String.init)
        #expect(statuses.first?.hasPrefix("< HTTP/2 103") == true, "\(statuses) \(output.stderr.suffix(800))")
        #expect(statuses.last?.hasPrefix("< HTTP/2 200") == true, "\(statuses)")
        #expect(output.stderr.lowercased().contains("< link: </style.css>; rel=preload; as=style"), "\(output.stderr.suffix(800))")
    }

    // MARK: SIGTERM

    @Test("SIGTERM: GOAWAY with the last stream id, the stream in flight completes, a later stream is not served, the process exits")
    func sigterm() async throws {
        let fixture = try await ProxyFixture.start()
        defer { fixture.stop() }
        let pid = fixture.gateway.pid
        let report = try await Self.client("sigterm", port: fixture.port, [String(pid), "--path", "/slow?s=3", "--upstream", String(fixture.upstream.port)])
        #expect(report["goaway"] as? Int == 0, "\(report)")
        #expect(report["last_stream"] as? Int == 1, "\(report)")
        #expect((report["statuses"] as? [String: Any] ?? [:])["1"] as? Int == 200, "\(report)")
        #expect((report["ended"] as? [Int] ?? []).contains(1), "\(report)")
        #expect(report["late"] as? String != nil && (report["statuses"] as? [String: Any] ?? [:])["3"] as? Int == nil, "\(report)")
        // The process exits once its connections are done (well within SHUTDOWN_GRACE_PERIOD).
        let exited = await eventually(timeout: .seconds(30)) { Self.hasExited(pid) }
        #expect(exited, "the gateway is still running")
    }

    /// Exited: gone, or a zombie its parent (the test) has not reaped.
    static func hasExited(_ pid: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return true }
        return status.contains("State:\tZ")
    }
}
