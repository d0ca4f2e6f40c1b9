@testable import AppNativeAuth
import AppNativeDevPeers
import AppNativeJSON
import Testing

/// Which kind a token is and the rules of each kind (contract/auth.md §3 step 14, §4), on the
/// token shapes Microsoft documents (`EntraTokenShapes`): ID tokens, v1 and v2 access tokens,
/// v1 and v2 app-only tokens, groups overage.
@Suite("Entra token kinds")
struct EntraTokenKindTests {
    static let app = "ios-app-client-id"
    static let api = "0e0e0e0e-api0-4000-8000-0000000000a1"
    static let service = "5e5e5e5e-svc0-4000-8000-0000000000b2"

    static var shapes: EntraTokenShapes {
        EntraTokenShapes(tenantID: EntraFixture.tenant, appClientID: app, apiClientID: api, serviceClientID: service,
                         issuedAt: EntraFixture.start - 10)
    }

    static func fixture(
        idTokens: Bool = true, accessTokens: Bool = true, scopes: [String] = ["access_as_user"], appClients: [String] = [service]
    ) async throws -> EntraFixture {
        try await EntraFixture(mode: .kinds(
            idTokenAudiences: idTokens ? [app] : nil,
            accessTokens: accessTokens ? try EntraConfiguration.AccessTokenRules(apiClientID: api, requiredScopes: scopes, appClients: appClients) : nil))
    }

    static func sign(_ fixture: EntraFixture, _ claims: JSONObject) throws -> String {
        try fixture.factory.token(headerJSON: #"{"alg":"RS256","typ":"JWT","kid":"test-kid-1"}"#, claimsJSON: JSONSerializer.string(.object(claims)))
    }

    static func verify(_ fixture: EntraFixture, _ claims: JSONObject) async throws(AuthError) -> (VerifiedIdentity, EntraTokenKind?) {
        let token: String
        do { token = try sign(fixture, claims) } catch { throw AuthError(.malformed, "signing failed") }
        let identity = try await fixture.verifier.verify(token)
        return (identity, fixture.verifier.verifiedKind(of: token))
    }

    @Test("both kinds at once: an ID token, v1 and v2 access tokens, each by its own rules")
    func bothKinds() async throws {
        let fixture = try await Self.fixture()
        let (idUser, idKind) = try await Self.verify(fixture, Self.shapes.idToken())
        #expect(idKind == .idToken(clientID: Self.app))
        #expect(idUser.user.callerType == .user)
        #expect(idUser.user.clientID == Self.app)
        #expect(idUser.user.email == "dev.user@example.com")
        let (v1User, v1Kind) = try await Self.verify(fixture, Self.shapes.accessTokenV1())
        #expect(v1Kind == .delegatedAccessToken(version: .v1, clientID: Self.app))
        #expect(v1User.user.email == "dev.user@example.com")  // the upn: v1 access tokens carry no email
        #expect(v1User.user.clientID == Self.app)
        let (v2User, v2Kind) = try await Self.verify(fixture, Self.shapes.accessTokenV2())
        #expect(v2Kind == .delegatedAccessToken(version: .v2, clientID: Self.app))
        #expect(v2User.user.callerType == .user)
    }

    @Test("each kind alone refuses the other")
    func eachAlone() async throws {
        let idOnly = try await Self.fixture(accessTokens: false)
        await #expect(throws: AuthError(.audience, "")) { _ = try await Self.verify(idOnly, Self.shapes.accessTokenV2()) }
        await #expect(throws: AuthError(.issuer, "")) { _ = try await Self.verify(idOnly, Self.shapes.accessTokenV1()) }
        let accessOnly = try await Self.fixture(idTokens: false)
        await #expect(throws: AuthError(.audience, "")) { _ = try await Self.verify(accessOnly, Self.shapes.idToken()) }
        _ = try await Self.verify(accessOnly, Self.shapes.accessTokenV1())
    }

    @Test("ambiguity is refused: aud naming both, ver against iss, scp beside idtyp app, an ID token from the v1 issuer or with scp")
    func ambiguity() async throws {
        let fixture = try await Self.fixture()
        var bothAudiences = Self.shapes.accessTokenV2()
        bothAudiences["aud"] = .array([.string(Self.api), .string(Self.app)])
        await #expect(throws: AuthError(.tokenKind, "")) { _ = try await Self.verify(fixture, bothAudiences) }
        var wrongVersion = Self.shapes.accessTokenV1()
        wrongVersion["ver"] = .string("2.0")
        await #expect(throws: AuthError(.tokenKind, "")) { _ = try await Self.verify(fixture, wrongVersion) }
        var scopedApp = Self.shapes.appTokenV2()
        scopedApp["scp"] = .string("access_as_user")
        await #expect(throws: AuthError(.tokenKind, "")) { _ = try await Self.verify(fixture, scopedApp) }
        var v1IDToken = Self.shapes.idToken()
        v1IDToken["iss"] = .string(Self.shapes.v1Issuer)
        v1IDToken["ver"] = .string("1.0")
        await #expect(throws: AuthError(.issuer, "")) { _ = try await Self.verify(fixture, v1IDToken) }
        var scopedIDToken = Self.shapes.idToken()
        scopedIDToken["scp"] = .string("access_as_user")
        await #expect(throws: AuthError(.accessToken, "")) { _ = try await Self.verify(fixture, scopedIDToken) }
        var appIDToken = Self.shapes.idToken()
        appIDToken["idtyp"] = .string("app")
        await #expect(throws: AuthError(.tokenKind, "")) { _ = try await Self.verify(fixture, appIDToken) }
    }

    @Test("scopes: at least one of the required scopes; none is 403 scope, before oid and email")
    func scopes() async throws {
        let fixture = try await Self.fixture(scopes: ["Reports.Read", "access_as_user"])
        _ = try await Self.verify(fixture, Self.shapes.accessTokenV2(scopes: "User.Read Reports.Read"))
        _ = try await Self.verify(fixture, Self.shapes.accessTokenV1(scopes: "access_as_user"))
        var none = Self.shapes.accessTokenV2(scopes: "User.Read Reports.ReadWrite")
        none["oid"] = nil
        let error = await #expect(throws: AuthError.self) { _ = try await Self.verify(fixture, none) }
        #expect(error?.code == .scope)
        #expect(error?.bearerStatus == 403)
        var delegatedWithoutScope = Self.shapes.accessTokenV2()
        delegatedWithoutScope["scp"] = nil
        await #expect(throws: AuthError(.noScopeClaim, "")) { _ = try await Self.verify(fixture, delegatedWithoutScope) }
    }

    @Test("app-only tokens v1 and v2: allowed clients are applications without email")
    func appCallers() async throws {
        let fixture = try await Self.fixture()
        for (claims, version) in [(Self.shapes.appTokenV2(), EntraTokenKind.Version.v2), (Self.shapes.appTokenV1(), .v1),
                                  (Self.shapes.appTokenV2(withTokenType: false), .v2)] {
            let (identity, kind) = try await Self.verify(fixture, claims)
            #expect(kind == .appOnlyAccessToken(version: version, clientID: Self.service))
            #expect(identity.user.callerType == .app)
            #expect(identity.user.email == nil)
            #expect(identity.user.objectID == Self.shapes.servicePrincipalID)
            #expect(identity.user.clientID == Self.service)
            #expect(identity.user.roles == ["Reports.Read"])
        }
    }

    @Test("app-only tokens refused: service callers off (app_only), another client or none (app_not_allowed), all 403")
    func appCallersRefused() async throws {
        let off = try await Self.fixture(appClients: [])
        let offError = await #expect(throws: AuthError.self) { _ = try await Self.verify(off, Self.shapes.appTokenV2()) }
        #expect(offError?.code == .appOnly)
        #expect(offError?.bearerStatus == 403)
        let on = try await Self.fixture(appClients: ["someone-else"])
        let other = await #expect(throws: AuthError.self) { _ = try await Self.verify(on, Self.shapes.appTokenV1()) }
        #expect(other?.code == .appNotAllowed)
        #expect(other?.bearerStatus == 403)
        let allowed = try await Self.fixture()
        var anonymous = Self.shapes.appTokenV2()
        anonymous["azp"] = nil
        await #expect(throws: AuthError(.appNotAllowed, "")) { _ = try await Self.verify(allowed, anonymous) }
        // idtyp user without scp is a user's token without scopes, not an application's.
        var userType = Self.shapes.appTokenV2()
        userType["idtyp"] = .string("user")
        await #expect(throws: AuthError(.noScopeClaim, "")) { _ = try await Self.verify(allowed, userType) }
    }

    @Test("groups and both overage signals reach the identity")
    func groups() async throws {
        let fixture = try await Self.fixture()
        let (listed, _) = try await Self.verify(fixture, EntraTokenShapes.withGroups(Self.shapes.accessTokenV2(), ["g1", "g2"]))
        #expect(listed.user.groups == ["g1", "g2"])
        #expect(!listed.user.hasGroupsOverage)
        let (overage, _) = try await Self.verify(fixture, Self.shapes.withGroupsOverage(Self.shapes.accessTokenV1()))
        #expect(overage.user.hasGroupsOverage)
        #expect(overage.user.groups.isEmpty)
        let (implicit, _) = try await Self.verify(fixture, EntraTokenShapes.withHasGroups(Self.shapes.idToken()))
        #expect(implicit.user.hasGroupsOverage)
        let (appOverage, _) = try await Self.verify(fixture, Self.shapes.withGroupsOverage(Self.shapes.appTokenV2()))
        #expect(appOverage.user.hasGroupsOverage)
    }

    @Test("configuration: overlapping audiences, scopes and app clients need the API")
    func configuration() throws {
        let tenant = EntraFixture.tenant
        #expect(throws: AuthError(.configuration, "")) {
            try EntraConfiguration(tenantID: tenant, idTokenAudiences: [Self.api], accessTokens: try .init(apiClientID: Self.api))
        }
        #expect(throws: AuthError(.configuration, "")) { try EntraConfiguration.AccessTokenRules(apiClientID: Self.api, requiredScopes: []) }
        #expect(throws: AuthError(.configuration, "")) { try EntraConfiguration.AccessTokenRules(apiClientID: Self.api, appClients: ["a b"]) }
        for extra in [["ENTRA_REQUIRED_SCOPES": "x"], ["ENTRA_APP_CLIENTS": "y"]] {
            let error = #expect(throws: AuthError.self) {
                try EntraConfiguration.fromEnvironment(["ENTRA_TENANT_ID": tenant, "ENTRA_AUDIENCE": "a"].merging(extra) { $1 })
            }
            #expect(error?.reason.contains("needs ENTRA_API_CLIENT_ID") == true)
        }
        let both = try EntraConfiguration.fromEnvironment([
            "ENTRA_TENANT_ID": tenant, "ENTRA_AUDIENCE": "a", "ENTRA_API_CLIENT_ID": "b",
            "ENTRA_REQUIRED_SCOPES": "access_as_user, Reports.Read", "ENTRA_APP_CLIENTS": "svc-1,svc-2",
        ])
        #expect(both.accessTokens?.requiredScopes == ["access_as_user", "Reports.Read"])
        #expect(both.accessTokens?.appClients == ["svc-1", "svc-2"])
        #expect(both.allowedAudiences == ["a", "b", "api://b"])
        #expect(both.allowedIssuers.count == 2)
    }
}
