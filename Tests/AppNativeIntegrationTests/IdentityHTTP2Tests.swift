import AppNativeDevPeers
import AppNativeJSON
import AppNativeSignIn
import AppNativeTesting
import Foundation
import Testing

/// Every identity behaviour over HTTP/2, beside its HTTP/1.1 test (docs/testing.md lists each
/// pair): curl with `--http2-prior-knowledge` on the cleartext listener and `--http2` (ALPN) over
/// TLS, each test once per transport.
@Suite("Identity over HTTP/2", .serialized)
struct IdentityHTTP2Tests {
    enum Transport: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case cleartext, tls
        var testDescription: String { rawValue }

        var environment: [String: String] { self == .tls ? HTTP2Tests.tls : [:] }

        func origin(_ port: Int) -> String { self == .tls ? "https://localhost:\(port)" : "http://127.0.0.1:\(port)" }
    }

    /// One HTTP/2 answer as curl saw it.
    struct Answer: CustomStringConvertible {
        let status: Int
        let version: String
        /// Response fields, names lowercased, in order.
        let headers: [(String, String)]
        let body: String

        func header(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }
        func values(_ name: String) -> [String] { headers.filter { $0.0 == name }.map(\.1) }
        /// The fields the upstream echoed (`/echo`), names lowercased.
        var echoed: [(String, String)] { HTTP2Tests.echoHeaders(body) }
        func echoed(_ name: String) -> String? { echoed.first { $0.0 == name }?.1 }
        /// `name=value` of the first Set-Cookie naming `cookie`.
        func cookie(_ cookie: String) -> String? {
            values("set-cookie").first { $0.hasPrefix(cookie + "=") }.map { String($0.prefix { $0 != ";" }) }
        }

        var description: String { "\(status) over HTTP/\(version): \(body.prefix(300))" }
    }

    static func request(
        _ transport: Transport, port: Int, _ target: String, method: String = "GET", headers: [String: String] = [:], body: String? = nil
    ) async throws -> Answer {
        var arguments = ["-sS", "--max-time", "20", "-i", "-X", method, "-w", "\n%{http_version}"]
        switch transport {
        case .cleartext: arguments += ["--http2-prior-knowledge"]
        case .tls: arguments += ["--http2", "--cacert", HTTP2Tests.root + "/keys/test/ca.pem"]
        }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { arguments += ["-H", "\(name): \(value)"] }
        if let body { arguments += ["--data-binary", body] }
        let output = try await ProcessRunner.run("/usr/bin/curl", arguments + [transport.origin(port) + target])
        var text = output.stdout
        let version = String(text.split(separator: "\n", omittingEmptySubsequences: false).last ?? "")
        text = String(text.dropLast(version.count + 1))
        let parts = text.components(separatedBy: "\r\n\r\n")
        let head = parts.first?.split(separator: "\r\n").map(String.init) ?? []
        let status = head.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        let fields = head.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Answer(status: status, version: version, headers: fields, body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    static func token(roles: [String] = []) throws -> String {
        var user = DevIdentityProvider.User()
        user.roles = roles
        return try ProxyFixture.devProvider().token(for: user, issuedAt: Date().timeIntervalSince1970)
    }

    /// Beside `IdentityTests.invalidToken` and `keysUnavailable`.
    @Test("bearer refusals: 401 invalid_token (a valid cookie does not rescue it); keys unavailable: 503 with Retry-After", arguments: Transport.allCases)
    func bearerRefusals(_ transport: Transport) async throws {
        let fixture = try await ProxyFixture.start(IdentityTests.protected.merging(transport.environment) { $1 })
        defer { fixture.stop() }
        let port = fixture.port
        let token = try Self.token()
        let signedIn = try await Self.request(transport, port: port, "/echo", headers: ["Authorization": "Bearer \(token)"])
        #expect(signedIn.status == 200 && signedIn.version == "2", "\(signedIn)")
        let cookie = try #require(signedIn.cookie("bms_session"))
        for authorization in ["Bearer garbage", "Bearer", "Bearer " + token.dropLast(3) + "abc"] {
            let refused = try await Self.request(transport, port: port, "/echo", headers: ["Authorization": authorization, "Cookie": cookie])
            #expect(refused.status == 401 && refused.version == "2", "\(authorization.prefix(12)): \(refused)")
            #expect(refused.header("www-authenticate") == #"Bearer error="invalid_token""#)
            #expect(refused.body == #"{"detail":"Invalid token"}"#)
            #expect(refused.header("set-cookie") == nil)
        }
        let keyless = try await ProxyFixture.start(
            IdentityTests.protected.merging(transport.environment) { $1 }.merging(["ENTRA_JWKS_URL": "http://127.0.0.1:9/keys"]) { $1 })
        defer { keyless.stop() }
        let unavailable = try await Self.request(transport, port: keyless.port, "/echo", headers: ["Authorization": "Bearer \(token)"])
        #expect(unavailable.status == 503 && unavailable.header("retry-after") == "30", "\(unavailable)")
        #expect(unavailable.body == #"{"detail":"Sign-in is temporarily unavailable"}"#)
    }

    /// Beside `IdentityTests.cookiePath` and `AccessLogTests`.
    @Test("the cookie exchange, the Origin rule on state changes, /.auth/me, logout, forward-auth verify, the access log and metrics by protocol", arguments: Transport.allCases)
    func cookieOriginEndpoints(_ transport: Transport) async throws {
        let fixture = try await ProxyFixture.start(IdentityTests.protected.merging(transport.environment) { $1 }.merging(["ACCESS_LOG": "true"]) { $1 })
        defer { fixture.stop() }
        let port = fixture.port
        let origin = transport.origin(port)
        let token = try Self.token()
        let session = try await Self.request(transport, port: port, "/.auth/session", method: "POST", headers: ["Authorization": "Bearer \(token)"])
        #expect(session.status == 204 && session.version == "2", "\(session)")
        let cookie = try #require(session.cookie("bms_session"))
        let read = try await Self.request(transport, port: port, "/echo/read", headers: ["Cookie": cookie])
        #expect(read.status == 200 && read.header("set-cookie") == nil, "\(read)")
        #expect(read.echoed("x-appnative-auth-method") == "cookie")
        func post(_ origin: String?) async throws -> Int {
            var headers = ["Cookie": cookie]
            if let origin { headers["Origin"] = origin }
            return try await Self.request(transport, port: port, "/echo/write", method: "POST", headers: headers, body: "hi").status
        }
        #expect(try await post(nil) == 403)
        #expect(try await post("https://evil.example") == 403)
        #expect(try await post(origin) == 200)
        let me = try await Self.request(transport, port: port, "/.auth/me", headers: ["Cookie": cookie])
        #expect(me.status == 200 && me.body.contains("\"auth_method\":\"cookie\""), "\(me)")

        let verified = try await Self.request(
            transport, port: port, "/.auth/verify", headers: ["X-Original-URI": "/echo", "X-Original-Method": "GET", "Cookie": cookie])
        #expect(verified.status == 200 && verified.header("x-appnative-user-email") == "dev.user@example.com", "\(verified)")
        let unverified = try await Self.request(transport, port: port, "/.auth/verify", headers: ["X-Original-URI": "/echo", "X-Original-Method": "GET"])
        #expect(unverified.status == 401, "\(unverified)")

        let byGet = try await Self.request(transport, port: port, "/.auth/logout", headers: ["Cookie": cookie])
        #expect(byGet.status == 405 && byGet.header("allow") == "POST" && byGet.header("set-cookie") == nil, "\(byGet)")
        let crossSite = try await Self.request(transport, port: port, "/.auth/logout", method: "POST", headers: ["Cookie": cookie, "Origin": "https://evil.example"])
        #expect(crossSite.status == 403 && crossSite.header("set-cookie") == nil, "\(crossSite)")
        let logout = try await Self.request(transport, port: port, "/.auth/logout", method: "POST", headers: ["Cookie": cookie, "Origin": origin])
        #expect(logout.status == 204 && logout.header("set-cookie")?.contains("Max-Age=0") == true, "\(logout)")

        // The access log names the protocol; its other fields are those of HTTP/1.1.
        var entry: JSONObject?
        while entry == nil {
            let line = try #require(await blocking { fixture.gateway.nextOutputLine() }, "the gateway closed its output")
            if let object = try? JSONParser().parse(line).objectValue, object["type"]?.stringValue == "access",
                object["path"]?.stringValue == "/echo/read"
            {
                entry = object
            }
        }
        #expect(entry?["protocol"]?.stringValue == "h2")
        #expect(entry?["method"]?.stringValue == "GET" && entry?["status"]?.numberValue?.int64 == 200)
        #expect(entry?["auth.method"]?.stringValue == "cookie" && entry?["user.oid"]?.stringValue == DevIdentityProvider.User().objectID)
        // One HTTP/1.1 request on the same listener: the counter tells the two apart.
        var http1 = ["-sS", "--max-time", "20", "--http1.1", "-o", "/dev/null", "-w", "%{http_version}"]
        if transport == .tls { http1 += ["--cacert", HTTP2Tests.root + "/keys/test/ca.pem"] }
        let overHTTP1 = try await ProcessRunner.run("/usr/bin/curl", http1 + [origin + "/public/h1"])
        #expect(overHTTP1.stdout == "1.1", "\(overHTTP1.stdout) \(overHTTP1.stderr)")
        let metrics = try await ProcessRunner.run("/usr/bin/curl", ["-sS", "http://127.0.0.1:\(fixture.gateway.adminPort)/metrics"])
        func count(_ label: String) -> Int? {
            metrics.stdout.split(separator: "\n").first { $0.hasPrefix("appnative_http_protocol_requests_total{protocol=\"\(label)\"}") }
                .flatMap { $0.split(separator: " ").last }.flatMap { Int($0) }
        }
        #expect((count("h2") ?? 0) >= 10, "\(metrics.stdout.prefix(300))")
        #expect((count("http/1.1") ?? 0) >= 1, "\(metrics.stdout.prefix(300))")
    }

    /// Beside `IdentityTests.accessPolicy`, `authorizationHook` and `validToken` (the assertion).
    @Test("the access policy allows and denies by role; the authorization hook passes X-Authz-* or denies; forged identity fields are replaced by the gateway's own, the assertion included", arguments: Transport.allCases)
    func policyHookAssertion(_ transport: Transport) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID().uuidString).json")
        try #"{"rules":[{"path":"/echo/admin","roles":["Admin"]}]}"#.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let hook = try await LoopbackPeer.start(ProcessRunner.python, [ProxyFixture.root + "/Tests/Peers/upstream_peer.py"])
        defer { hook.stop() }
        for route in ["allow", "deny"] {
            let fixture = try await ProxyFixture.start(IdentityTests.protected.merging(transport.environment) { $1 }.merging([
                "ACCESS_POLICY_FILE": file.path, "AUTHORIZE_URL": "http://127.0.0.1:\(hook.port)/authz/\(route)",
            ]) { $1 })
            defer { fixture.stop() }
            let port = fixture.port
            let plain = try Self.token()
            if route == "deny" {
                let denied = try await Self.request(transport, port: port, "/echo", headers: ["Authorization": "Bearer \(plain)"])
                #expect(denied.status == 403 && denied.body == #"{"detail":"Not allowed"}"#, "\(denied)")
                continue
            }
            let forged = [
                "X-AppNative-User-Id": "mallory", "X-AppNative-Identity": "mallory.forged.assertion", "X-MS-CLIENT-PRINCIPAL": "mallory",
                "X-Authz-User-Id": "mallory", "Remote-User": "mallory",
            ]
            let allowed = try await Self.request(
                transport, port: port, "/echo/any", headers: forged.merging(["Authorization": "Bearer \(plain)"]) { $1 })
            #expect(allowed.status == 200 && allowed.version == "2", "\(allowed)")
            #expect(!allowed.echoed.contains { $0.1.contains("mallory") }, "\(allowed.echoed.filter { $0.1.contains("mallory") })")
            #expect(allowed.echoed("x-appnative-user-id") == DevIdentityProvider.User().objectID)
            #expect(allowed.echoed("x-authz-user-id") == "backend-42")
            let assertion = try #require(allowed.echoed("x-appnative-identity"))
            #expect(assertion.split(separator: ".").count == 3, "the gateway's assertion is a JWS")
            let refused = try await Self.request(transport, port: port, "/echo/admin/x", headers: ["Authorization": "Bearer \(plain)"])
            #expect(refused.status == 403, "\(refused)")
            let admin = try await Self.request(
                transport, port: port, "/echo/admin/x", headers: ["Authorization": "Bearer \(try Self.token(roles: ["Admin"]))"])
            #expect(admin.status == 200, "\(admin)")
        }
    }

    /// Beside `BrowserSignInTests`, `ForwardAuthTests.signInBehindFront` and, over TLS,
    /// `BrowserTests.signInOverHTTPS` (the deploy templates' `__Host-` session cookie, Secure).
    /// The dev provider registers the callback of the origin curl uses.
    @Test(
        "browser sign-in over HTTP/2: a navigation is redirected, fetch gets 401, the callback sets the session and the navigation is signed in",
        arguments: Transport.allCases)
    func browserSignIn(_ transport: Transport) async throws {
        let sessionCookie = transport == .tls ? "__Host-bms_session" : "bms_session"
        let setup = try await BrowserSignInTests.start(
            transport == .tls ? transport.environment.merging(["SESSION_SECURE": "true", "SESSION_COOKIE_NAME": sessionCookie]) { $1 } : [:])
        defer { setup.stop() }
        let port = setup.port
        let origin = transport.origin(port)
        setup.provider.register(redirectURI: origin + "/.auth/callback")
        let fetch = try await Self.request(transport, port: port, "/echo/x", headers: ["Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty", "Accept": "*/*"])
        #expect(fetch.status == 401 && fetch.header("location") == nil && fetch.version == "2", "\(fetch)")
        let navigation = try await Self.request(transport, port: port, "/echo/x?a=1", headers: BrowserSignInTests.navigation)
        #expect(navigation.status == 302 && navigation.version == "2", "\(navigation)")
        let location = try #require(navigation.header("location"))
        let attempt = try #require(
            navigation.values("set-cookie").first { $0.contains(SignInStateCookie.namePrefix) }.map(BrowserSignInTests.pair), "\(navigation.headers)")
        #expect(attempt.hasPrefix(transport == .tls ? "__Host-" + SignInStateCookie.namePrefix : SignInStateCookie.namePrefix), "\(attempt.prefix { $0 != "=" })")
        let callbackURI = origin + "/.auth/callback"
        let escaped = try #require(callbackURI.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))))
        #expect(location.contains("redirect_uri=" + escaped), "\(location)")
        let callback = try await BrowserSignInTests.choose("zoe", at: location)
        let callbackTarget = try #require(callback.hasPrefix(callbackURI) ? String(callback.dropFirst(origin.count)) : nil, "\(callback)")
        var headers = BrowserSignInTests.navigation
        headers["Sec-Fetch-Site"] = "cross-site"
        headers["Cookie"] = attempt
        let finished = try await Self.request(transport, port: port, callbackTarget, headers: headers)
        #expect(finished.status == 302 && finished.version == "2", "\(finished)")
        #expect(finished.header("location") == "/echo/x?a=1", "\(finished.headers)")
        let session = try #require(finished.cookie(sessionCookie), "\(finished.headers)")
        if transport == .tls {
            let setCookie = try #require(finished.values("set-cookie").first { $0.hasPrefix(sessionCookie + "=") })
            let attributes = setCookie.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            #expect(attributes.contains("secure") && attributes.contains("path=/") && attributes.contains("httponly"), "\(setCookie)")
            #expect(!attributes.contains { $0.hasPrefix("domain") }, "\(setCookie)")
        }
        let page = try await Self.request(transport, port: port, "/echo/x?a=1", headers: BrowserSignInTests.navigation.merging(["Cookie": session]) { $1 })
        #expect(page.status == 200 && page.version == "2" && page.echoed("x-appnative-auth-method") == "cookie", "\(page)")
    }

    /// Beside `NativeRoutesTests.routing` and `appSiteAssociation`.
    @Test("native routes: authentication first, 405 for the wrong method; apple-app-site-association from configuration", arguments: Transport.allCases)
    func nativeRoutes(_ transport: Transport) async throws {
        let fixture = try await NativeRoutesFixture.start(transport.environment.merging(["APPLE_APP_IDS": "ABCDE12345.com.example.app"]) { $1 })
        defer { fixture.stop() }
        let port = fixture.port
        let anonymous = try await Self.request(
            transport, port: port, "/api/devices", method: "POST", headers: ["Content-Type": "application/json"], body: #"{"device_id":"x"}"#)
        #expect(anonymous.status == 401 && anonymous.version == "2", "\(anonymous)")
        let wrongMethod = try await Self.request(transport, port: port, "/api/devices", headers: ["Authorization": "Bearer \(try Self.token())"])
        #expect(wrongMethod.status == 405 && wrongMethod.header("allow") == "POST", "\(wrongMethod)")
        let association = try await Self.request(transport, port: port, "/.well-known/apple-app-site-association")
        #expect(association.status == 200 && association.header("content-type") == "application/json", "\(association)")
        #expect(association.body.contains(#""appIDs":["ABCDE12345.com.example.app"]"#))
    }

    /// Beside `MisbehavingPeerTests.requestTrailers`: request trailers naming identity or framing
    /// fields never reach the upstream verbatim.
    @Test("request trailers naming identity or framing fields never reach the upstream")
    func requestTrailers() async throws {
        let fixture = try await RecordingUpstreamFixture.start()
        defer { fixture.stop() }
        let report = try await HTTP2AttackTests.play("request-trailers", port: fixture.port)
        #expect(report.statuses["1"] == 200, "\(report)")
        let received = try await blocking { try fixture.log() }
        let upstream = try #require(received.requests.first { $0.target == "/trailer-check" })
        let fields = upstream.headers + (upstream.trailers ?? [])
        #expect(!fields.contains { $0[1].contains("mallory-trailer") }, "headers \(upstream.headers) trailers \(upstream.trailers ?? [])")
        // Other trailers pass, as over HTTP/1.1.
        #expect(upstream.trailers?.contains { $0 == ["x-checksum", "ok"] } == true, "\(upstream.trailers ?? [])")
        #expect(upstream.bodyLength == 5)
    }
}
