import AppNativeDevPeers
import AppNativeHTTP
import AppNativeTesting
import Foundation
import Testing

/// Forward-auth `verify` judges the original request exactly as the proxy path judges its own:
/// path checks, public paths, the access policy with its methods, the authorization hook and the
/// Origin rule. First asked directly, as a front proxy asks, then through real nginx and Caddy.
@Suite("Adversarial: forward-auth verify", .serialized)
struct AdversarialForwardAuthTests {
    /// `/admin/` needs the Admin role; `POST /reports/` too; everything else any user.
    static let policy = #"{"rules":[{"path":"/admin/","roles":["Admin"]},{"path":"/reports","methods":["POST"],"roles":["Admin"]}]}"#

    static func withPolicy<T>(_ extra: [String: String] = [:], _ body: (ProxyFixture) async throws -> T) async throws -> T {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID().uuidString).json")
        try policy.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        var environment = ["PUBLIC_PATHS": "/public", "ACCESS_POLICY_FILE": file.path]
        environment.merge(extra) { $1 }
        let fixture = try await ProxyFixture.start(environment)
        defer { fixture.stop() }
        return try await body(fixture)
    }

    static func token(roles: [String] = []) throws -> String {
        var user = DevIdentityProvider.User()
        user.roles = roles
        return try ProxyFixture.devProvider().token(for: user, issuedAt: Date().timeIntervalSince1970)
    }

    /// What a front proxy sends `verify`: the client's fields plus the original method and URI.
    static func verify(
        port: Int, method: String = "GET", uri: String, headers: [String: String] = [:], family: String = "nginx"
    ) async throws -> RawHTTPClient.Response {
        var fields = headers
        if family == "nginx" {
            fields["X-Original-Method"] = method
            fields["X-Original-URI"] = uri
        } else {
            fields["X-Forwarded-Method"] = method
            fields["X-Forwarded-Uri"] = uri
        }
        let sent = fields
        return try await blocking { try RawHTTPClient.get(port: port, "/.auth/verify", headers: sent) }
    }

    static func header(_ response: RawHTTPClient.Response, _ name: String) -> String? {
        response.head.headers.first(name)
    }

    @Test("the access policy judges the original path and method, in both proxies' fields", arguments: ["nginx", "caddy"])
    func policyJudgesOriginal(_ family: String) async throws {
        try await Self.withPolicy { fixture in
            let user = ["Authorization": "Bearer \(try Self.token())"]
            let admin = ["Authorization": "Bearer \(try Self.token(roles: ["Admin"]))"]
            let port = fixture.port
            #expect(try await Self.verify(port: port, uri: "/admin/x", headers: user, family: family).status == 403)
            #expect(try await Self.verify(port: port, uri: "/admin/x", headers: admin, family: family).status == 200)
            #expect(try await Self.verify(port: port, uri: "/reports/q", headers: user, family: family).status == 200)
            #expect(try await Self.verify(port: port, method: "POST", uri: "/reports/q", headers: user, family: family).status == 403)
            #expect(try await Self.verify(port: port, uri: "/x", headers: user, family: family).status == 200)
            // The verify request's own method and path are never what is judged.
            #expect(try await Self.verify(port: port, method: "POST", uri: "/reports/q", headers: admin, family: family).status == 200)
        }
    }

    @Test("the authorization hook decides, and its X-Authz-* fields come back on the 200")
    func hookDecides() async throws {
        for (route, expected) in [("deny", 403), ("allow", 200)] {
            // The hook lives on the fixture's upstream peer.
            let fixture = try await ProxyFixture.startWithUpstreamHook(route)
            defer { fixture.stop() }
            let answer = try await Self.verify(port: fixture.port, uri: "/x", headers: ["Authorization": "Bearer \(try Self.token())"])
            #expect(answer.status == expected, "hook \(route)")
            if expected == 200 {
                #expect(Self.header(answer, "X-Authz-User-Id") == "backend-42")
            }
        }
    }

    @Test("a cookie-authenticated cross-site state change is refused; same-origin and token requests pass")
    func originRule() async throws {
        try await Self.withPolicy { fixture in
            let port = fixture.port
            let cookie = try await fixture.sessionCookie(token: try Self.token())
            let ownOrigin = "http://127.0.0.1:\(port)"
            func ask(_ method: String, origin: String?, credential: [String: String]) async throws -> Int {
                var headers = credential
                if let origin { headers["Origin"] = origin }
                return try await Self.verify(port: port, method: method, uri: "/x", headers: headers).status
            }
            let byCookie = ["Cookie": cookie]
            #expect(try await ask("POST", origin: "https://evil.example", credential: byCookie) == 403)
            #expect(try await ask("DELETE", origin: nil, credential: byCookie) == 403)
            #expect(try await ask("POST", origin: ownOrigin, credential: byCookie) == 200)
            #expect(try await ask("GET", origin: "https://evil.example", credential: byCookie) == 200)
            let byToken = ["Authorization": "Bearer \(try Self.token())"]
            #expect(try await ask("POST", origin: "https://evil.example", credential: byToken) == 200)
        }
    }

    @Test("path checks and public paths apply to the original target")
    func pathsJudgeOriginal() async throws {
        try await Self.withPolicy { fixture in
            let port = fixture.port
            let user = ["Authorization": "Bearer \(try Self.token())"]
            #expect(try await Self.verify(port: port, uri: "/public/x").status == 200)
            #expect(try await Self.verify(port: port, uri: "/public").status == 200)
            #expect(try await Self.verify(port: port, uri: "/publication-admin").status == 401)
            #expect(try await Self.verify(port: port, uri: "/public/..;/admin/x", headers: user).status == 400)
            #expect(try await Self.verify(port: port, uri: "/public/%2e%2e/admin/x", headers: user).status == 400)
            #expect(try await Self.verify(port: port, uri: "/admin;x/y", headers: user).status == 403)
            // A public answer carries every identity field empty, so a copying proxy replaces forgeries.
            let anonymous = try await Self.verify(port: port, uri: "/public/x", headers: ["X-AppNative-User-Id": "mallory"])
            #expect(Self.header(anonymous, "X-AppNative-User-Id") == "")
        }
    }

    @Test("without the original request, or with two that disagree, verify refuses to guess")
    func originalMissingOrConflicting() async throws {
        try await Self.withPolicy { fixture in
            let port = fixture.port
            let user = "Bearer \(try Self.token())"
            let missing = try await blocking { try RawHTTPClient.get(port: port, "/.auth/verify", headers: ["Authorization": user]) }
            #expect(missing.status == 400)
            let noMethod = try await blocking {
                try RawHTTPClient.get(port: port, "/.auth/verify", headers: ["Authorization": user, "X-Original-URI": "/x"])
            }
            #expect(noMethod.status == 400)
            // Behind nginx a client can add the other family's field; behind Caddy, this one's.
            let smuggled = try await Self.verify(port: port, uri: "/admin/x", headers: ["Authorization": user, "X-Forwarded-Uri": "/public/x"])
            #expect(smuggled.status == 400)
            let smuggledMethod = try await Self.verify(
                port: port, method: "POST", uri: "/reports/q", headers: ["Authorization": user, "X-Forwarded-Method": "GET"])
            #expect(smuggledMethod.status == 400)
            let lowercase = try await Self.verify(port: port, method: "post", uri: "/reports/q", headers: ["Authorization": user])
            #expect(lowercase.status == 400)
        }
    }

    // MARK: Real front proxies

    @Test("behind real nginx and Caddy: policy, forged target fields and cross-site cookie writes", arguments: ["nginx", "caddy"])
    func realFronts(_ front: String) async throws {
        try await Self.withPolicy { fixture in
            let proxy = front == "nginx"
                ? try await ForwardAuthTests.startNginx(gatewayPort: fixture.port, upstreamPort: fixture.upstream.port)
                : try await ForwardAuthTests.startCaddy(gatewayPort: fixture.port, upstreamPort: fixture.upstream.port)
            defer { proxy.stop() }
            let port = proxy.port
            let user = "Bearer \(try Self.token())"
            func send(_ method: String, _ target: String, _ headers: [String: String]) async throws -> RawHTTPClient.Response {
                try await blocking { try RawHTTPClient.request(port: port, method: method, target, headers: headers) }
            }
            #expect(try await send("GET", "/echo/x", ["Authorization": user]).status == 200, "\(front)")
            #expect(try await send("GET", "/admin/x", ["Authorization": user]).status == 403, "\(front)")
            #expect(try await send("POST", "/reports/q", ["Authorization": user]).status == 403, "\(front)")
            // The other family's fields, sent by the client, never turn /admin into a public path.
            for forged in ["X-Forwarded-Uri", "X-Original-URI"] {
                let smuggled = try await send("GET", "/admin/x", ["Authorization": user, forged: "/public/x"])
                #expect(smuggled.status != 200, "\(front): \(forged) from the client decided")
                let anonymous = try await send("GET", "/admin/x", [forged: "/public/x"])
                #expect(anonymous.status != 200, "\(front): \(forged) from an anonymous client decided")
            }
            let cookie = try await fixture.sessionCookie(token: try Self.token())
            let crossSite = try await send("POST", "/echo/x", ["Cookie": cookie, "Origin": "https://evil.example"])
            #expect(crossSite.status == 403, "\(front)")
        }
    }
}

extension ProxyFixture {
    /// A session cookie (`name=value`) for `token`, from `POST /.auth/session`.
    func sessionCookie(token: String) async throws -> String {
        let port = port
        let answer = try await blocking {
            try RawHTTPClient.request(port: port, method: "POST", "/.auth/session", headers: ["Authorization": "Bearer \(token)"])
        }
        guard answer.status == 204, let field = answer.head.headers.first("Set-Cookie"), let pair = field.split(separator: ";").first else {
            throw FixtureFailure(description: "no session cookie: \(answer.status)")
        }
        return String(pair)
    }

    /// A fixture whose gateway asks the upstream peer's `/authz/<route>` hook, uncached.
    static func startWithUpstreamHook(_ route: String) async throws -> ProxyFixture {
        try await start(["PUBLIC_PATHS": "/public", "AUTHORIZE_URL": "{upstream}/authz/\(route)", "AUTHORIZE_CACHE_SECONDS": "0,0"])
    }
}
