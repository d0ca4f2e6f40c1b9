import AppNativeDevPeers
import AppNativeHTTP
import AppNativeTesting
import Foundation
import Testing

/// Identity at the gateway (contract/auth.md §1, §2, §7, §8) through the real gateway and upstream.
@Suite("Identity at the gateway", .serialized)
struct IdentityTests {
    static let protected = ["PUBLIC_PATHS": "/public"]

    static func token(lifetime: Duration = .seconds(3600)) throws -> String {
        try ProxyFixture.devProvider().token(issuedAt: Date().timeIntervalSince1970, lifetime: lifetime)
    }

    static func header(_ response: RawHTTPClient.Response, _ name: String) -> String? {
        response.head.headers.first(name)
    }

    @Test("no credential: 401 Not authenticated with WWW-Authenticate: Bearer, never a redirect")
    func noCredential() async throws {
        let fixture = try await ProxyFixture.start(Self.protected)
        defer { fixture.stop() }
        let port = fixture.port
        let response = try await blocking { try RawHTTPClient.get(port: port, "/echo") }
        #expect(response.status == 401)
        #expect(Self.header(response, "WWW-Authenticate") == "Bearer")
        #expect(response.bodyText == #"{"detail":"Not authenticated"}"#)
        #expect(Self.header(response, "Location") == nil)
        let publicResponse = try await blocking { try RawHTTPClient.get(port: port, "/public/x") }
        #expect(publicResponse.status == 404)  // reached the upstream, which has no such route
    }

    @Test("an invalid token: 401 invalid_token, and a valid cookie does not rescue it")
    func invalidToken() async throws {
        let fixture = try await ProxyFixture.start(Self.protected)
        defer { fixture.stop() }
        let port = fixture.port
        let token = try Self.token()
        let signedIn = try await blocking { try RawHTTPClient.get(port: port, "/echo", headers: ["Authorization": "Bearer \(token)"]) }
        let cookie = try #require(Self.header(signedIn, "Set-Cookie")?.split(separator: ";").first.map(String.init))
        for authorization in ["Bearer garbage", "Bearer", "Bearer " + token.dropLast(3) + "abc"] {
            let response = try await blocking {
                try RawHTTPClient.get(port: port, "/echo", headers: ["Authorization": authorization, "Cookie": cookie])
            }
            #expect(response.status == 401, "\(authorization.prefix(12))")
            #expect(Self.header(response, "WWW-Authenticate") == #"Bearer error="invalid_token""#)
            #expect(response.bodyText == #"{"detail":"Invalid token"}"#)
            #expect(Self.header(response, "Set-Cookie") == nil)
        }
    }

    @Test("a valid token: identity headers reach the upstream, forged ones never do, a fresh cookie comes back")
    func validToken() async throws {
        let fixture = try await ProxyFixture.start(Self.protected)
        defer { fixture.stop() }
        let port = fixture.port
        let token = try Self.token()
        var forged = [String: String]()
        for name in ["X-AppNative-User-Id", "X-AppNative-User-Email", "X-MS-CLIENT-PRINCIPAL", "X-MS-CLIENT-PRINCIPAL-ID",
                     "X-Forwarded-User", "X-Forwarded-Email", "X-Forwarded-Preferred-Username", "X-Auth-Request-User",
                     "X-Auth-Request-Email", "Remote-User", "X-Remote-User", "X-Goog-Authenticated-User-Email", "x-appnative-identity"] {
            forged[name] = "mallory"
        }
        forged["X_Forwarded_User"] = "mallory"
        forged["X-Forwarded_Email"] = "mallory"
        forged["Authorization"] = "Bearer \(token)"
        forged["Cookie"] = "theme=dark; bms_session=forged-value; lang=en"
        let forgedHeaders = forged
        let response = try await blocking { try RawHTTPClient.get(port: port, "/echo", headers: forgedHeaders) }
        #expect(response.status == 200)
        let headers = try ProxyFixture.echoedHeaders(response)
        #expect(!headers.contains { $0.1.contains("mallory") }, "a forged identity header reached the upstream: \(headers.filter { $0.1.contains("mallory") })")
        func value(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }
        #expect(value("x-appnative-user-id") == DevIdentityProvider.User().objectID)
        #expect(value("x-appnative-user-email") == "dev.user@example.com")
        #expect(value("x-appnative-tenant-id") == DevIdentityProvider.tenantID)
        #expect(value("x-appnative-auth-method") == "token")
        #expect(value("authorization") == nil)
        #expect(value("cookie") == "theme=dark; lang=en")
        // An independent decoder (Python's urllib) restores the non-ASCII name.
        let encodedName = try #require(value("x-appnative-user-name"))
        let decoded = try await ProcessRunner.run(ProcessRunner.python, ["-c", "import sys, urllib.parse; print(urllib.parse.unquote(sys.argv[1]))", encodedName])
        #expect(decoded.stdout.trimmingCharacters(in: .newlines) == "Zoë Müller-Łukasz")
        // The cookie of contract/auth.md §8.3.
        let setCookie = try #require(Self.header(response, "Set-Cookie"))
        let attributes = Set(setCookie.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
        #expect(setCookie.hasPrefix("bms_session=ey"))
        #expect(attributes == ["httponly", "max-age=28800", "path=/", "samesite=lax"])
        // The assertion verifies with PyJWT against the gateway's JWKS.
        let assertion = try #require(value("x-appnative-identity"))
        let jwks = try await blocking { try RawHTTPClient.get(port: port, "/.auth/jwks.json") }
        let verified = try await ProcessRunner.run(ProcessRunner.python, [
            ProxyFixture.root + "/Tests/Peers/pyjwt_peer.py", "verify-es256", "--jwks", jwks.bodyText, "--token", assertion,
            "--audience", "app-native-upstream",
        ])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.contains(DevIdentityProvider.User().objectID))
        #expect(verified.stdout.contains("Zoë Müller-Łukasz"))
    }

    @Test("cookie-only requests pass without renewal; state changes need an allowed Origin")
    func cookiePath() async throws {
        let fixture = try await ProxyFixture.start(Self.protected)
        defer { fixture.stop() }
        let port = fixture.port
        let token = try Self.token()
        let session = try await blocking { () -> RawHTTPClient.Response in
            let client = try RawHTTPClient(port: port)
            try client.send("POST /.auth/session HTTP/1.1\r\nHost: gw.test\r\nAuthorization: Bearer \(token)\r\nContent-Length: 0\r\n\r\n")
            return try client.readResponse(to: "POST")
        }
        #expect(session.status == 204)
        let cookie = try #require(Self.header(session, "Set-Cookie")?.split(separator: ";").first.map(String.init))
        let read = try await blocking { try RawHTTPClient.get(port: port, "/echo", headers: ["Cookie": cookie]) }
        #expect(read.status == 200)
        #expect(Self.header(read, "Set-Cookie") == nil)
        #expect(try ProxyFixture.echoedHeaders(read).first { $0.0 == "x-appnative-auth-method" }?.1 == "cookie")
        func post(_ origin: String?) async throws -> Int {
            try await blocking {
                let client = try RawHTTPClient(port: port)
                var request = "POST /echo HTTP/1.1\r\nHost: gw.test\r\nCookie: \(cookie)\r\nContent-Length: 2\r\n"
                if let origin { request += "Origin: \(origin)\r\n" }
                try client.send(request + "\r\nhi")
                return try client.readResponse(to: "POST").status
            }
        }
        #expect(try await post(nil) == 403)
        #expect(try await post("https://evil.example") == 403)
        #expect(try await post("https://gw.test") == 200)
        let me = try await blocking { try RawHTTPClient.get(port: port, "/.auth/me", headers: ["Cookie": cookie]) }
        #expect(me.status == 200)
        #expect(me.bodyText.contains("\"auth_method\":\"cookie\""))
        let logout = try await blocking { try RawHTTPClient.request(port: port, method: "POST", "/.auth/logout") }
        #expect(logout.status == 204)
        #expect(Self.header(logout, "Set-Cookie")?.contains("Max-Age=0") == true)
        // An <img> or a link on another site cannot sign the user out.
        let byGet = try await blocking { try RawHTTPClient.get(port: port, "/.auth/logout", headers: ["Cookie": cookie]) }
        #expect(byGet.status == 405 && Self.header(byGet, "Allow") == "POST")
        #expect(Self.header(byGet, "Set-Cookie") == nil)
        let crossSite = try await blocking {
            try RawHTTPClient.request(
                port: port, method: "POST", "/.auth/logout", headers: ["Cookie": cookie, "Origin": "https://evil.example"])
        }
        #expect(crossSite.status == 403 && Self.header(crossSite, "Set-Cookie") == nil)
        let sameSite = try await blocking {
            try RawHTTPClient.request(
                port: port, method: "POST", "/.auth/logout", headers: ["Cookie": cookie, "Origin": "http://127.0.0.1:\(port)"])
        }
        #expect(sameSite.status == 204)
        // Forward-auth: what a front proxy asks about the request it holds.
        let original = ["X-Original-URI": "/echo", "X-Original-Method": "GET"]
        let verify = try await blocking {
            try RawHTTPClient.get(port: port, "/.auth/verify", headers: original.merging(["Cookie": cookie]) { $1 })
        }
        #expect(verify.status == 200)
        #expect(Self.header(verify, "X-AppNative-User-Email") == "dev.user@example.com")
        let denied = try await blocking { try RawHTTPClient.get(port: port, "/.auth/verify", headers: original) }
        #expect(denied.status == 401)
    }

    @Test("keys unavailable: 503 with Retry-After: 30")
    func keysUnavailable() async throws {
        let fixture = try await ProxyFixture.start(Self.protected.merging(["ENTRA_JWKS_URL": "http://127.0.0.1:9/keys"]) { $1 })
        defer { fixture.stop() }
        let port = fixture.port
        let token = try Self.token()
        let response = try await blocking { try RawHTTPClient.get(port: port, "/echo", headers: ["Authorization": "Bearer \(token)"]) }
        #expect(response.status == 503)
        #expect(Self.header(response, "Retry-After") == "30")
        #expect(response.bodyText == #"{"detail":"Sign-in is temporarily unavailable"}"#)
    }

    @Test("Easy Auth and oauth2-proxy profiles decode as those systems send them")
    func profiles() async throws {
        let token = try Self.token()
        for profile in ["easyauth", "oauth2-proxy"] {
            let fixture = try await ProxyFixture.start(Self.protected.merging(["IDENTITY_HEADERS": profile]) { $1 })
            defer { fixture.stop() }
            let port = fixture.port
            let response = try await blocking { try RawHTTPClient.get(port: port, "/echo", headers: ["Authorization": "Bearer \(token)"]) }
            let headers = try ProxyFixture.echoedHeaders(response)
            func value(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }
            if profile == "easyauth" {
                let principal = try #require(value("x-ms-client-principal"))
                let decoded = try await ProcessRunner.run(ProcessRunner.python, ["-c", """
                    import base64, json, sys
                    p = json.loads(base64.b64decode(sys.argv[1]))
                    claims = {c["typ"]: c["val"] for c in p["claims"]}
                    print(p["auth_typ"], claims["http://schemas.microsoft.com/identity/claims/objectidentifier"], claims["name"])
                    """, principal])
                #expect(decoded.stdout.trimmingCharacters(in: .newlines) == "aad \(DevIdentityProvider.User().objectID) Zoë Müller-Łukasz", "\(decoded.stderr)")
                #expect(value("x-ms-client-principal-id") == DevIdentityProvider.User().objectID)
                #expect(value("x-ms-client-principal-idp") == "aad")
            } else {
                #expect(value("x-forwarded-user") == DevIdentityProvider.User().objectID)
                #expect(value("x-forwarded-email") == "dev.user@example.com")
            }
        }
    }

    /// The upstream peer (serving the dev JWKS too) and a gateway in front of its HTTP or its
    /// WebSocket listener that closes long-lived connections as soon as their credential expires.
    static func gatewayClosingAtExpiry(toWebSocketListener: Bool) async throws -> (LoopbackPeer, GatewayProcess) {
        let jwksFile = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json")
        try ProxyFixture.devProvider().jwksDocument.write(to: jwksFile, atomically: true, encoding: .utf8)
        let upstream = try await LoopbackPeer.start(ProcessRunner.python, [ProxyFixture.root + "/Tests/Peers/upstream_peer.py", "--jwks", jwksFile.path])
        do {
            let gateway = try await GatewayProcess.start(environment: [
                "UPSTREAM_URL": "http://127.0.0.1:\(toWebSocketListener ? upstream.ports[1] : upstream.port)",
                "ENTRA_TENANT_ID": DevIdentityProvider.tenantID, "ENTRA_AUDIENCE": DevIdentityProvider.audience,
                "ENTRA_JWKS_URL": "http://127.0.0.1:\(upstream.port)/test-jwks", "CREDENTIAL_EXPIRY_GRACE": "0",
                "CLOCK_SKEW_LEEWAY": "0",
            ])
            return (upstream, gateway)
        } catch {
            upstream.stop()
            throw error
        }
    }

    @Test("a WebSocket opened with a token is closed with code 4401 when the token expires")
    func webSocketEndsWithCredential() async throws {
        let (upstream, gateway) = try await Self.gatewayClosingAtExpiry(toWebSocketListener: true)
        defer {
            gateway.stop()
            upstream.stop()
        }
        // Long enough for a loaded machine to start the client and finish the handshake before it expires.
        let token = try Self.token(lifetime: .seconds(10))
        let script = """
            import asyncio, sys, time, websockets
            async def main():
                async with websockets.connect(sys.argv[1], extra_headers={"Authorization": "Bearer " + sys.argv[2]}) as ws:
                    await ws.send("still here")
                    assert await ws.recv() == "still here"
                    start = time.monotonic()
                    try:
                        await asyncio.wait_for(ws.recv(), 45)
                        print("not closed")
                    except websockets.ConnectionClosed as closed:
                        # The gateway's close frame, not a dropped connection (1006).
                        code = closed.rcvd.code if closed.rcvd else None
                        reason = closed.rcvd.reason if closed.rcvd else None
                        print("closed after %.1f s with %s %s" % (time.monotonic() - start, code, reason))
            asyncio.run(main())
            """
        let output = try await ProcessRunner.run(ProcessRunner.python, ["-c", script, "ws://127.0.0.1:\(gateway.port)/socket", token])
        #expect(output.stdout.hasPrefix("closed after"), "\(output.stdout) \(output.stderr.suffix(800))")
        #expect(output.stdout.contains("with 4401 credential expired"), "\(output.stdout) \(output.stderr.suffix(800))")
    }

    @Test(
        "an event stream opened with a token ends cleanly when the token expires",
        arguments: ["text/event-stream", "application/json;q=0.1, Text/Event-Stream ;q=0.9"])
    func eventStreamEndsWithCredential(accept: String) async throws {
        let (upstream, gateway) = try await Self.gatewayClosingAtExpiry(toWebSocketListener: false)
        defer {
            gateway.stop()
            upstream.stop()
        }
        // Long enough for a loaded machine to start the client before it expires.
        let token = try Self.token(lifetime: .seconds(10))
        // /sse sends its first event, then holds the stream open for 30 s unless released.
        let script = """
            import socket, sys, time
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
            s.sendall(("GET /sse HTTP/1.1\\r\\nHost: a\\r\\nAccept: %s\\r\\nAuthorization: Bearer %s\\r\\n\\r\\n"
                       % (sys.argv[3], sys.argv[2])).encode())
            s.settimeout(45)
            start, received, closed = time.monotonic(), b"", True
            try:
                # The chunked body's last chunk is the clean end; the connection may stay open.
                while not received.endswith(b"\\r\\n0\\r\\n\\r\\n"):
                    data = s.recv(65536)
                    if not data:
                        closed = False
                        break
                    received += data
            except (ConnectionResetError, socket.timeout):
                closed = False
            if closed and b"first" in received and b"second" not in received:
                print("closed after %.1f s" % (time.monotonic() - start))
            else:
                print("not closed as expected: %r" % received[-200:])
            """
        let output = try await ProcessRunner.run(ProcessRunner.python, ["-c", script, String(gateway.port), token, accept])
        // The peer's own second event (after 30 s) never arriving shows the gateway ended it.
        #expect(output.stdout.hasPrefix("closed after"), "\(output.stdout) \(output.stderr.suffix(800))")
    }

    @Test("the authorization hook: allow passes its X-Authz-* headers and is cached; deny is 403; errors are 503")
    func authorizationHook() async throws {
        let token = try Self.token()
        for (route, expected) in [("allow", 200), ("deny", 403), ("error", 503)] {
            let upstream = try await LoopbackPeer.start(ProcessRunner.python, [ProxyFixture.root + "/Tests/Peers/upstream_peer.py"])
            defer { upstream.stop() }
            let fixture = try await ProxyFixture.start(Self.protected.merging([
                "AUTHORIZE_URL": "http://127.0.0.1:\(upstream.port)/authz/\(route)", "AUTHORIZE_CACHE_SECONDS": "60,60",
            ]) { $1 })
            defer { fixture.stop() }
            let port = fixture.port
            for _ in 0..<3 {
                let response = try await blocking { try RawHTTPClient.get(port: port, "/echo", headers: ["Authorization": "Bearer \(token)"]) }
                #expect(response.status == expected, "\(route)")
                if route == "allow" {
                    let headers = try ProxyFixture.echoedHeaders(response)
                    #expect(headers.first { $0.0 == "x-authz-user-id" }?.1 == "backend-42")
                    #expect(headers.first { $0.0 == "x-authz-seen-user" }?.1 == DevIdentityProvider.User().objectID)
                    #expect(!headers.contains { $0.0 == "x-not-passed" })
                }
                if route == "deny" { #expect(response.bodyText == #"{"detail":"Not allowed"}"#) }
            }
            let upstreamPort = upstream.port
            let calls = try await blocking { try ProxyFixture.echo(try RawHTTPClient.get(port: upstreamPort, "/authz/calls"))["calls"] as? Int }
            // allow and deny are cached per object id; a failing hook is asked every time.
            #expect(calls == (route == "error" ? 3 : 1), "\(route): \(calls ?? -1) calls")
        }
    }

    @Test("the authorization hook: X-Authz-* names that are not tokens are dropped, the gateway keeps serving")
    func authorizationHookInvalidNames() async throws {
        let token = try Self.token()
        let upstream = try await LoopbackPeer.start(ProcessRunner.python, [ProxyFixture.root + "/Tests/Peers/upstream_peer.py"])
        defer { upstream.stop() }
        // No cache: every request goes through the hook's answer again.
        let fixture = try await ProxyFixture.start(Self.protected.merging([
            "AUTHORIZE_URL": "http://127.0.0.1:\(upstream.port)/authz/bad-names", "AUTHORIZE_CACHE_SECONDS": "0,0",
        ]) { $1 })
        defer { fixture.stop() }
        let port = fixture.port
        for _ in 0..<2 {
            let response = try await blocking { try RawHTTPClient.get(port: port, "/echo", headers: ["Authorization": "Bearer \(token)"]) }
            #expect(response.status == 200)
            let headers = try ProxyFixture.echoedHeaders(response)
            #expect(headers.first { $0.0 == "x-authz-user-id" }?.1 == "backend-42")
            #expect(headers.filter { $0.0.hasPrefix("x-authz-") }.count == 1, "\(headers.map(\.0))")
        }
    }

    @Test("the access policy: first matching rule wins; roles grant access")
    func accessPolicy() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID().uuidString).json")
        try #"{"rules":[{"path":"/echo/admin","methods":["GET"],"roles":["Admin"]},{"path":"/echo/any","allow":"authenticated"}]}"#
            .write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let fixture = try await ProxyFixture.start(Self.protected.merging(["ACCESS_POLICY_FILE": file.path]) { $1 })
        defer { fixture.stop() }
        let port = fixture.port
        let plain = try Self.token()
        var admin = DevIdentityProvider.User()
        admin.roles = ["Admin"]
        let adminToken = try ProxyFixture.devProvider().token(for: admin, issuedAt: Date().timeIntervalSince1970)
        func status(_ path: String, _ token: String) async throws -> Int {
            try await blocking { try RawHTTPClient.get(port: port, path, headers: ["Authorization": "Bearer \(token)"]).status }
        }
        #expect(try await status("/echo/admin/x", plain) == 403)
        #expect(try await status("/echo/admin/x", adminToken) == 200)
        #expect(try await status("/echo/any", plain) == 200)
        #expect(try await status("/echo/other", plain) == 200)
    }
}
