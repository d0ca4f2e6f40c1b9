import AppNativeDevPeers
import AppNativeHTTP
import AppNativeJSON
import AppNativeTesting
import Foundation
import Testing

/// Entra ID as organisations use it, through the gateway binary and the echo
/// upstream, with tokens of every kind shaped as Microsoft documents them (`EntraTokenShapes`)
/// and signed by the dev identity provider: both kinds at once, required scopes, service callers
/// with app-only tokens, the caller in each header profile, groups, and `groups` rules for a
/// token, the cookie obtained from it, and a groups overage.
@Suite("Entra token kinds, service callers and groups", .serialized)
struct EntraTokenKindsTests {
    static let api = "0e0e0e0e-0000-4000-8000-0000000000a1"
    static let service = "5e5e5e5e-0000-4000-8000-0000000000b2"
    static let otherService = "5e5e5e5e-0000-4000-8000-0000000000b3"

    static var shapes: EntraTokenShapes {
        EntraTokenShapes(
            tenantID: DevIdentityProvider.tenantID, appClientID: DevIdentityProvider.audience, apiClientID: api,
            serviceClientID: service, issuedAt: Date().timeIntervalSince1970 - 5)
    }

    /// Both kinds, service callers of `service`, every path protected.
    static let both = ["ENTRA_API_CLIENT_ID": api, "ENTRA_APP_CLIENTS": service, "PUBLIC_PATHS": "/public"]

    static func sign(_ claims: JSONObject) throws -> String {
        try ProxyFixture.devProvider().token(claims: claims)
    }

    static func get(_ port: Int, _ path: String = "/echo", token: String? = nil, cookie: String? = nil,
                    extra: [String: String] = [:]) async throws -> RawHTTPClient.Response {
        var headers = extra
        if let token { headers["Authorization"] = "Bearer \(token)" }
        if let cookie { headers["Cookie"] = cookie }
        let fields = headers
        return try await blocking { try RawHTTPClient.get(port: port, path, headers: fields) }
    }

    static func echoed(_ response: RawHTTPClient.Response, _ name: String) throws -> String? {
        try ProxyFixture.echoedHeaders(response).first { $0.0 == name.lowercased() }?.1
    }

    static func cookie(of response: RawHTTPClient.Response) -> String? {
        response.head.headers.first("Set-Cookie")?.split(separator: ";").first.map(String.init)
    }

    /// A policy file in a temporary directory.
    static func policy(_ json: String) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID().uuidString).json")
        try json.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    @Test("both kinds at once: an ID token and v1 and v2 access tokens pass, each a user with its client")
    func bothKinds() async throws {
        let fixture = try await ProxyFixture.start(Self.both)
        defer { fixture.stop() }
        for claims in [Self.shapes.idToken(email: "ada@example.com"), Self.shapes.accessTokenV1(), Self.shapes.accessTokenV2()] {
            let response = try await Self.get(fixture.port, token: try Self.sign(claims))
            #expect(response.status == 200, "\(claims["ver"].debugDescription) \(claims["aud"].debugDescription): \(response.bodyText)")
            #expect(try Self.echoed(response, "X-AppNative-Caller-Type") == "user")
            #expect(try Self.echoed(response, "X-AppNative-Client-Id") == DevIdentityProvider.audience)
            #expect(try Self.echoed(response, "X-AppNative-User-Id") == Self.shapes.userObjectID)
            #expect(try Self.echoed(response, "X-AppNative-User-Email") != nil)
        }
        // An access token naming the app too is ambiguous.
        var ambiguous = Self.shapes.accessTokenV2()
        ambiguous["aud"] = .array([.string(Self.api), .string(DevIdentityProvider.audience)])
        let refused = try await Self.get(fixture.port, token: try Self.sign(ambiguous))
        #expect(refused.status == 401)
    }

    @Test("either kind alone works as before: access tokens are refused where only ID tokens are configured")
    func eitherAlone() async throws {
        let idOnly = try await ProxyFixture.start(["PUBLIC_PATHS": "/public"])
        defer { idOnly.stop() }
        #expect(try await Self.get(idOnly.port, token: try Self.sign(Self.shapes.idToken())).status == 200)
        #expect(try await Self.get(idOnly.port, token: try Self.sign(Self.shapes.accessTokenV2())).status == 401)
        let accessOnly = try await ProxyFixture.start(["ENTRA_AUDIENCE": "", "ENTRA_API_CLIENT_ID": Self.api, "PUBLIC_PATHS": "/public"])
        defer { accessOnly.stop() }
        #expect(try await Self.get(accessOnly.port, token: try Self.sign(Self.shapes.accessTokenV1())).status == 200)
        #expect(try await Self.get(accessOnly.port, token: try Self.sign(Self.shapes.idToken())).status == 401)
    }

    @Test("scopes: one of ENTRA_REQUIRED_SCOPES is enough; none is 403 Missing scope")
    func scopes() async throws {
        let fixture = try await ProxyFixture.start(Self.both.merging(["ENTRA_REQUIRED_SCOPES": "Reports.Read, access_as_user"]) { $1 })
        defer { fixture.stop() }
        let allowed = try await Self.get(fixture.port, token: try Self.sign(Self.shapes.accessTokenV2(scopes: "User.Read Reports.Read")))
        #expect(allowed.status == 200)
        let refused = try await Self.get(fixture.port, token: try Self.sign(Self.shapes.accessTokenV1(scopes: "User.Read")))
        #expect(refused.status == 403)
        #expect(refused.bodyText == #"{"detail":"Missing scope"}"#)
    }

    @Test("service callers: an allowed client is an application upstream and gets no cookie; others are 403")
    func serviceCallers() async throws {
        let fixture = try await ProxyFixture.start(Self.both)
        defer { fixture.stop() }
        for claims in [Self.shapes.appTokenV2(), Self.shapes.appTokenV1(), Self.shapes.appTokenV2(withTokenType: false)] {
            let token = try Self.sign(claims)
            let forged = ["X-AppNative-Caller-Type": "user", "X-AppNative-Client-Id": "mallory", "X-AppNative-User-Email": "mallory"]
            let response = try await Self.get(fixture.port, token: token, extra: forged)
            #expect(response.status == 200, "\(response.bodyText)")
            #expect(try Self.echoed(response, "X-AppNative-Caller-Type") == "app")
            #expect(try Self.echoed(response, "X-AppNative-Client-Id") == Self.service)
            #expect(try Self.echoed(response, "X-AppNative-User-Id") == Self.shapes.servicePrincipalID)
            #expect(try Self.echoed(response, "X-AppNative-User-Roles") == "Reports.Read")
            #expect(try Self.echoed(response, "X-AppNative-User-Email") == nil)
            #expect(response.head.headers.first("Set-Cookie") == nil)
            // `me` names the application; POST session refuses to make it a session.
            let me = try await Self.get(fixture.port, "/.auth/me", token: token)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(me.body)) as? [String: Any])
            #expect(document["caller_type"] as? String == "app")
            #expect(document["client_id"] as? String == Self.service)
            #expect(document["email"] == nil)
            #expect(me.head.headers.first("Set-Cookie") == nil)
            let port = fixture.port
            let session = try await blocking {
                try RawHTTPClient.request(port: port, method: "POST", "/.auth/session", headers: ["Authorization": "Bearer \(token)"])
            }
            #expect(session.status == 403)
            #expect(session.head.headers.first("Set-Cookie") == nil)
        }
        var other = Self.shapes.appTokenV2()
        other["azp"] = .string(Self.otherService)
        let refused = try await Self.get(fixture.port, token: try Self.sign(other))
        #expect(refused.status == 403)
        #expect(refused.bodyText == #"{"detail":"Application not allowed"}"#)

        let off = try await ProxyFixture.start(["ENTRA_API_CLIENT_ID": Self.api, "PUBLIC_PATHS": "/public"])
        defer { off.stop() }
        let offResponse = try await Self.get(off.port, token: try Self.sign(Self.shapes.appTokenV1()))
        #expect(offResponse.status == 403)
        #expect(offResponse.bodyText == #"{"detail":"Application not allowed"}"#)
    }

    @Test("policy roles rules apply to an application's app roles")
    func policyRolesForApps() async throws {
        let policy = try Self.policy(#"{"rules": [{"path": "/reports", "roles": ["Reports.Read"]}]}"#)
        let fixture = try await ProxyFixture.start(Self.both.merging(["ACCESS_POLICY_FILE": policy]) { $1 })
        defer { fixture.stop() }
        #expect(try await Self.get(fixture.port, "/reports/x", token: try Self.sign(Self.shapes.appTokenV2())).status == 404)
        let without = try await Self.get(fixture.port, "/reports/x", token: try Self.sign(Self.shapes.appTokenV2(roles: ["Other"])))
        #expect(without.status == 403)
        #expect(without.bodyText == #"{"detail":"Not allowed"}"#)
    }

    @Test("the caller in the easyauth and oauth2-proxy profiles; X-Forwarded-Groups carries groups")
    func profiles() async throws {
        let easy = try await ProxyFixture.start(Self.both.merging(["IDENTITY_HEADERS": "easyauth"]) { $1 })
        defer { easy.stop() }
        let app = try await Self.get(easy.port, token: try Self.sign(EntraTokenShapes.withGroups(Self.shapes.appTokenV2(), ["g-app"])))
        #expect(app.status == 200)
        let principal = try #require(try Self.echoed(app, "X-MS-CLIENT-PRINCIPAL"))
        let decoded = try #require(Data(base64Encoded: principal).flatMap { try JSONSerialization.jsonObject(with: $0) as? [String: Any] })
        let claims = (decoded["claims"] as? [[String: String]] ?? []).map { ($0["typ"] ?? "", $0["val"] ?? "") }
        #expect(claims.contains { $0 == ("idtyp", "app") })
        #expect(claims.contains { $0 == ("azp", Self.service) })
        #expect(claims.contains { $0 == ("roles", "Reports.Read") })
        #expect(claims.contains { $0 == ("groups", "g-app") })
        #expect(!claims.contains { $0.0 == "preferred_username" })
        #expect(try Self.echoed(app, "X-MS-CLIENT-PRINCIPAL-NAME") == Self.service)
        #expect(try Self.echoed(app, "X-MS-CLIENT-PRINCIPAL-IDP") == "aad")
        let user = try await Self.get(easy.port, token: try Self.sign(EntraTokenShapes.withGroups(Self.shapes.accessTokenV2(), ["g1"])))
        let userPrincipal = try #require(try Self.echoed(user, "X-MS-CLIENT-PRINCIPAL"))
        let userText = String(decoding: Data(base64Encoded: userPrincipal) ?? Data(), as: UTF8.self)
        #expect(userText.contains(#"{"typ":"idtyp","val":"user"}"#))
        #expect(userText.contains(#"{"typ":"groups","val":"g1"}"#))

        let proxy = try await ProxyFixture.start(Self.both.merging(["IDENTITY_HEADERS": "oauth2-proxy"]) { $1 })
        defer { proxy.stop() }
        let forged = ["X-Forwarded-Groups": "mallory", "X-Forwarded-Email": "mallory"]
        let proxyApp = try await Self.get(proxy.port, token: try Self.sign(Self.shapes.appTokenV1()), extra: forged)
        #expect(try Self.echoed(proxyApp, "X-Forwarded-User") == Self.shapes.servicePrincipalID)
        #expect(try Self.echoed(proxyApp, "X-Forwarded-Email") == nil)
        #expect(try Self.echoed(proxyApp, "X-Forwarded-Groups") == nil)
        #expect(try Self.echoed(proxyApp, "X-AppNative-Caller-Type") == "app")
        #expect(try Self.echoed(proxyApp, "X-AppNative-Client-Id") == Self.service)
        #expect(try Self.echoed(proxyApp, "X-AppNative-User-Roles") == "Reports.Read")
        let proxyUser = try await Self.get(
            proxy.port, token: try Self.sign(EntraTokenShapes.withGroups(Self.shapes.accessTokenV2(), ["g1", "g2"])), extra: forged)
        #expect(try Self.echoed(proxyUser, "X-Forwarded-Groups") == "g1,g2")
        #expect(try Self.echoed(proxyUser, "X-AppNative-Caller-Type") == "user")
    }

    @Test("groups reach the upstream; a groups rule decides the same for a token and the cookie obtained from it")
    func groupsRuleForTokenAndCookie() async throws {
        let policy = try Self.policy(#"{"rules": [{"path": "/team", "groups": ["g-team"]}]}"#)
        let fixture = try await ProxyFixture.start(Self.both.merging(["ACCESS_POLICY_FILE": policy]) { $1 })
        defer { fixture.stop() }
        let member = try Self.sign(EntraTokenShapes.withGroups(Self.shapes.idToken(), ["g-other", "g-team"]))
        let echo = try await Self.get(fixture.port, token: member, extra: ["X-AppNative-User-Groups": "mallory"])
        #expect(try Self.echoed(echo, "X-AppNative-User-Groups") == "g-other,g-team")
        let byToken = try await Self.get(fixture.port, "/team/x", token: member)
        #expect(byToken.status == 404)  // allowed: the upstream has no such page
        let cookie = try #require(Self.cookie(of: byToken))
        #expect(try await Self.get(fixture.port, "/team/x", cookie: cookie).status == 404)
        let byCookie = try await Self.get(fixture.port, cookie: cookie)
        #expect(try Self.echoed(byCookie, "X-AppNative-User-Groups") == "g-other,g-team")

        let outsider = try Self.sign(EntraTokenShapes.withGroups(Self.shapes.accessTokenV2(), ["g-other"]))
        let outsiderByToken = try await Self.get(fixture.port, "/team/x", token: outsider)
        #expect(outsiderByToken.status == 403)
        let outsiderCookie = try #require(Self.cookie(of: try await Self.get(fixture.port, token: outsider)))
        #expect(try await Self.get(fixture.port, "/team/x", cookie: outsiderCookie).status == 403)
    }

    @Test("a groups overage (token or cookie beyond the budget) under a groups rule: 403 and a log line naming it")
    func groupsOverage() async throws {
        let policy = try Self.policy(#"{"rules": [{"path": "/team", "groups": ["g-team"]}, {"path": "/reports", "roles": ["Reports.Read"]}]}"#)
        let fixture = try await ProxyFixture.start(Self.both.merging(["ACCESS_POLICY_FILE": policy]) { $1 })
        defer { fixture.stop() }
        for claims in [Self.shapes.withGroupsOverage(Self.shapes.accessTokenV1()), EntraTokenShapes.withHasGroups(Self.shapes.idToken())] {
            let token = try Self.sign(claims)
            let refused = try await Self.get(fixture.port, "/team/x", token: token)
            #expect(refused.status == 403)
            #expect(refused.bodyText == #"{"detail":"Not allowed"}"#)
            // Other paths are unaffected.
            #expect(try await Self.get(fixture.port, "/elsewhere", token: token).status == 404)
        }
        #expect(await eventually { fixture.gateway.logs.contains("groups_overage") }, "\(fixture.gateway.logs.suffix(1500))")
        // Many groups: the token decides from them; its cookie carries "groups elsewhere" (one claim).
        let many = (1...40).map { String(format: "0a1b2c3d-0000-4000-8000-%012d", $0) } + ["g-team"]
        let token = try Self.sign(EntraTokenShapes.withGroups(Self.shapes.accessTokenV2(), many))
        let byToken = try await Self.get(fixture.port, "/team/x", token: token)
        #expect(byToken.status == 404)
        let cookie = try #require(Self.cookie(of: byToken))
        #expect(cookie.utf8.count < 1200, "the cookie grew with the groups: \(cookie.utf8.count) bytes")
        #expect(try await Self.get(fixture.port, "/team/x", cookie: cookie).status == 403)
        #expect(try await Self.get(fixture.port, "/elsewhere", cookie: cookie).status == 404)
    }

    @Test("the access log marks an application and names each refusal's reason (scope, app_not_allowed, token_kind, groups_overage)")
    func accessLog() async throws {
        let policy = try Self.policy(#"{"rules": [{"path": "/team", "groups": ["g-team"]}]}"#)
        let fixture = try await ProxyFixture.start(Self.both.merging(["ACCESS_POLICY_FILE": policy, "ACCESS_LOG": "true"]) { $1 })
        defer { fixture.stop() }
        var other = Self.shapes.appTokenV2()
        other["azp"] = .string(Self.otherService)
        var ambiguous = Self.shapes.accessTokenV1()
        ambiguous["ver"] = .string("2.0")
        let requests: [(String, JSONObject, Int)] = [
            ("/echo", Self.shapes.appTokenV2(), 200),
            ("/echo", Self.shapes.accessTokenV2(scopes: "User.Read"), 403),
            ("/echo", other, 403),
            ("/echo", ambiguous, 401),
            ("/team/x", Self.shapes.withGroupsOverage(Self.shapes.accessTokenV2()), 403),
        ]
        for (path, claims, status) in requests {
            #expect(try await Self.get(fixture.port, path, token: try Self.sign(claims)).status == status, "\(path) \(status)")
        }
        var lines: [JSONObject] = []
        while lines.count < requests.count {
            let line = try #require(await blocking { fixture.gateway.nextOutputLine() }, "the gateway closed its output")
            let object = try #require(try JSONParser().parse(line).objectValue, "not a JSON object: \(line)")
            if object["type"]?.stringValue == "access" { lines.append(object) }
        }
        #expect(lines[0]["auth.caller"]?.stringValue == "app")
        #expect(lines[0]["user.oid"]?.stringValue == Self.shapes.servicePrincipalID)
        #expect(lines.dropFirst().map { $0["auth.reason"]?.stringValue } == ["scope", "app_not_allowed", "token_kind", "groups_overage"])
        #expect(lines[1]["auth.caller"] == nil)
        #expect(await eventually { fixture.gateway.logs.contains("groups overage") }, "\(fixture.gateway.logs.suffix(1500))")
    }
}
