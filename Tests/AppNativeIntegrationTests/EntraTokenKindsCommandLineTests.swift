import AppNativeDevPeers
import AppNativeJSON
import AppNativeTesting
import Foundation
import Testing

/// `token verify` explains each new outcome (the kind, scopes, service callers, the groups
/// overage) and `config check` validates the new settings, through the built executable.
@Suite("Entra token kinds: token verify and config check")
struct EntraTokenKindsCommandLineTests {
    static let tenant = DevIdentityProvider.tenantID
    static let api = EntraTokenKindsTests.api
    static let service = EntraTokenKindsTests.service

    static func verdict(_ claims: JSONObject, _ environment: [String: String]) async throws -> JSONObject {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json")
        try ProxyFixture.devProvider().jwksDocument.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let token = try ProxyFixture.devProvider().token(claims: claims)
        let output = try await CommandLineTests.run(
            ["token", "verify", "--jwks-file", file.path], input: token,
            environment: ["ENTRA_TENANT_ID": tenant].merging(environment) { $1 })
        #expect(!output.stdout.contains(token))
        return try CommandLineTests.json(output.stdout)
    }

    static let both = ["ENTRA_AUDIENCE": DevIdentityProvider.audience, "ENTRA_API_CLIENT_ID": api]

    @Test("the kind detected and what an accepted token becomes")
    func accepted() async throws {
        let shapes = EntraTokenKindsTests.shapes
        let id = try await Self.verdict(shapes.idToken(), Self.both)
        #expect(id["valid"] == .bool(true))
        #expect(id["kind"] == .string("id_token"))
        let v1 = try await Self.verdict(shapes.accessTokenV1(), Self.both)
        #expect(v1["kind"] == .string("access_token_v1"))
        #expect(v1["user"]?["caller_type"] == .string("user"))
        #expect(v1["user"]?["client_id"] == .string(DevIdentityProvider.audience))
        let app = try await Self.verdict(shapes.appTokenV2(), Self.both.merging(["ENTRA_APP_CLIENTS": Self.service]) { $1 })
        #expect(app["kind"] == .string("app_token_v2"))
        #expect(app["user"]?["caller_type"] == .string("app"))
        #expect(app["user"]?["email"] == .null)
        #expect(app["explanation"]?.stringValue?.contains("ENTRA_APP_CLIENTS") == true)
        let overage = try await Self.verdict(shapes.withGroupsOverage(shapes.accessTokenV2()), Self.both)
        #expect(overage["user"]?["groups_overage"] == .bool(true))
        #expect(overage["explanation"]?.stringValue?.contains("groups overage") == true)
    }

    @Test("refusals name the reason and explain it: scope, app_only, app_not_allowed, token_kind")
    func refused() async throws {
        let shapes = EntraTokenKindsTests.shapes
        let scope = try await Self.verdict(shapes.accessTokenV2(scopes: "User.Read"), Self.both)
        #expect(scope["reason"] == .string("scope"))
        #expect(scope["status"] == .number(JSONNumber(403)))
        #expect(scope["explanation"]?.stringValue?.contains("ENTRA_REQUIRED_SCOPES") == true)
        let appOnly = try await Self.verdict(shapes.appTokenV1(), Self.both)
        #expect(appOnly["reason"] == .string("app_only"))
        #expect(appOnly["status"] == .number(JSONNumber(403)))
        let notAllowed = try await Self.verdict(shapes.appTokenV1(), Self.both.merging(["ENTRA_APP_CLIENTS": "someone-else"]) { $1 })
        #expect(notAllowed["reason"] == .string("app_not_allowed"))
        var ambiguous = shapes.accessTokenV2()
        ambiguous["ver"] = .string("1.0")
        let kind = try await Self.verdict(ambiguous, Self.both)
        #expect(kind["reason"] == .string("token_kind"))
        #expect(kind["status"] == .number(JSONNumber(401)))
    }

    @Test("config check validates the new settings, each naming its variable")
    func configCheck() async throws {
        let base = ["UPSTREAM_URL": "http://127.0.0.1:9", "ENTRA_TENANT_ID": Self.tenant]
        let good = try await CommandLineTests.run(["config", "check"], environment: base.merging(Self.both.merging([
            "ENTRA_REQUIRED_SCOPES": "access_as_user,Reports.Read", "ENTRA_APP_CLIENTS": Self.service,
        ]) { $1 }) { $1 })
        #expect(good.status == 0, "\(good.stderr)")
        let cases: [([String: String], String)] = [
            (["ENTRA_AUDIENCE": "a", "ENTRA_APP_CLIENTS": Self.service], "ENTRA_APP_CLIENTS"),
            (["ENTRA_AUDIENCE": "a", "ENTRA_REQUIRED_SCOPES": "x"], "ENTRA_REQUIRED_SCOPES"),
            (["ENTRA_API_CLIENT_ID": Self.api, "ENTRA_REQUIRED_SCOPES": "two words"], "ENTRA_REQUIRED_SCOPES"),
            (["ENTRA_API_CLIENT_ID": Self.api, "ENTRA_REQUIRED_SCOPES": " , "], "ENTRA_REQUIRED_SCOPES"),
            (["ENTRA_API_CLIENT_ID": Self.api, "ENTRA_AUDIENCE": "api://\(Self.api)"], "ENTRA_AUDIENCE"),
        ]
        for (settings, variable) in cases {
            let output = try await CommandLineTests.run(["config", "check"], environment: base.merging(settings) { $1 })
            #expect(output.status == 2, "\(settings)")
            #expect(output.stderr.contains("configuration: \(variable):"), "\(settings): \(output.stderr)")
        }
    }
}
