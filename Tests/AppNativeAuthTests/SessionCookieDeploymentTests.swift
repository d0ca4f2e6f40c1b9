import AppNativeAuth
import AppNativeCore
import AppNativeCrypto
import AppNativeJSON
import AppNativeTesting
import Foundation
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

/// A session cookie is bound to the deployment that issued it (`SESSION_AUDIENCE`): two
/// deployments sharing a secret refuse each other's cookies; the reference's cookies, which name no
/// deployment, are read only with `SESSION_ACCEPT_REFERENCE_COOKIES`.
@Suite("Session cookie bound to its deployment")
struct SessionCookieDeploymentTests {
    typealias Cookies = SessionCookieTests
    static let other = "appnative:2222bbbb-other-app"
    static let old = "previous-secret-previous-secret-previous"

    /// The failure code of reading `value`, `nil` when it verifies.
    static func failure(_ codec: SessionCookieCodec, _ value: String) -> AuthError.Code? {
        do {
            _ = try codec.identity(fromValue: value)
            return nil
        } catch {
            return error.code
        }
    }

    @Test("a cookie is read by its own deployment (any replica) and refused by another with the same secret")
    func bound() throws {
        let issuer = try Cookies.codec()
        let value = issuer.value(for: Cookies.user)
        #expect(try Cookies.codec().identity(fromValue: value).user == Cookies.user, "a replica of the same deployment")
        let foreign = try Cookies.codec(deployment: Self.other)
        #expect(Self.failure(foreign, value) == .deployment)
        #expect(foreign.identity(fromCookieHeaders: ["bms_session=\(value)"]) == nil)
        #expect(Self.failure(try Cookies.codec(deployment: Self.other, acceptsReferenceCookies: true), value) == .deployment,
                "the migration switch never opens the door to another deployment's cookie")
    }

    @Test("the refusal is the same whether the cookie was verified before or not; the verdict names `deployment`")
    func verdicts() throws {
        let foreign = try Cookies.codec(deployment: Self.other)
        let value = try Cookies.codec().value(for: Cookies.user)
        for round in 1...2 {
            guard case .failure(let error)? = foreign.verdict(fromCookieHeaders: ["a=1; bms_session=\(value)"]) else {
                Issue.record("round \(round): not refused")
                continue
            }
            #expect(error.code == .deployment)
            var field = Array("bms_session=\(value)".utf8)
            let inPlace = unsafe field.withUnsafeMutableBufferPointer { unsafe foreign.verdict(fromCookieField: UnsafeBufferPointer($0)) }
            guard case .failure(let fieldError)? = inPlace else {
                Issue.record("round \(round): field bytes not refused")
                continue
            }
            #expect(fieldError.code == .deployment)
        }
        #expect(foreign.verdict(fromCookieHeaders: ["a=1"]) == nil, "no cookie is no verdict")
        #expect(foreign.verdict(fromCookieHeaders: ["bms_session="]) == nil, "an empty cookie is no cookie")
        // A valid cookie after a foreign one of the same name still signs in.
        let own = foreign.value(for: Cookies.user)
        guard case .success? = foreign.verdict(fromCookieHeaders: ["bms_session=\(value); bms_session=\(own)"]) else {
            Issue.record("a valid second cookie was hidden by a foreign first one")
            return
        }
    }

    @Test("the reference's cookie (aud: the constant alone) is read only with SESSION_ACCEPT_REFERENCE_COOKIES",
          arguments: [true, false])
    func referenceCookies(asArray: Bool) throws {
        let audience: Any = asArray ? [SessionCookieCodec.audience] : SessionCookieCodec.audience
        let value = try Cookies.forge(Cookies.claims(["aud": audience]))
        #expect(Self.failure(try Cookies.codec(), value) == .deployment)
        #expect(try Cookies.codec(acceptsReferenceCookies: true).identity(fromValue: value).user.objectID == Cookies.user.objectID)
        // The migration switch reads a reference cookie; it does not read one without the constant.
        let bare = try Cookies.forge(Cookies.claims(["aud": Cookies.deployment]))
        #expect(Self.failure(try Cookies.codec(acceptsReferenceCookies: true), bare) == .audience)
    }

    @Test("rotation: a cookie signed with SESSION_SECRET_PREVIOUS stays read by its deployment, not by another")
    func rotation() throws {
        let oldCookie = try Cookies.codec(secrets: [Self.old]).value(for: Cookies.user)
        let rotated = try Cookies.codec(secrets: [Cookies.secret, Self.old])
        #expect(try rotated.identity(fromValue: oldCookie).user == Cookies.user)
        let rotatedElsewhere = try Cookies.codec(secrets: [Cookies.secret, Self.old], deployment: Self.other)
        #expect(Self.failure(rotatedElsewhere, oldCookie) == .deployment)
        let fresh = rotated.value(for: Cookies.user)
        #expect(Self.failure(try Cookies.codec(secrets: [Self.old]), fresh) == .signature)
    }

    @Test("the value names this deployment next to the constant; the deployment is readable for `cookie inspect`")
    func shape() throws {
        let value = try Cookies.codec().value(for: Cookies.user)
        #expect(SessionCookieCodec.namedDeployments(inUnverifiedValue: value) == [Cookies.deployment])
        let reference = try Cookies.forge(Cookies.claims(["aud": SessionCookieCodec.audience]))
        #expect(SessionCookieCodec.namedDeployments(inUnverifiedValue: reference) == [])
        #expect(SessionCookieCodec.namedDeployments(inUnverifiedValue: "garbage") == nil)
        // The binding costs the cookie one short string.
        let referenceShaped = try Cookies.forge(Cookies.claims(["aud": SessionCookieCodec.audience, "name": Cookies.user.name!, "upn": Cookies.user.upn!]))
        #expect(value.utf8.count - referenceShaped.utf8.count <= Cookies.deployment.utf8.count * 4 / 3 + 12)
    }

    @Test("SESSION_AUDIENCE: set, or derived from the Entra client ids, sorted")
    func audienceFromEnvironment() throws {
        func audience(_ environment: [String: String]) throws -> String {
            try SessionCookieSettings.audience(fromEnvironment: environment)
        }
        #expect(try audience(["SESSION_AUDIENCE": " staging ", "ENTRA_AUDIENCE": "app"]) == "staging")
        #expect(try audience(["ENTRA_AUDIENCE": "app-b, app-a,app-b"]) == "appnative:app-a,app-b")
        #expect(try audience(["ENTRA_API_CLIENT_ID": " api-id "]) == "appnative:api-id")
        #expect(try audience(["ENTRA_AUDIENCE": "ios-app", "ENTRA_CLIENT_ID": "web-app"]) == "appnative:ios-app,web-app")
        #expect(try audience(["ENTRA_AUDIENCE": "x", "ENTRA_CLIENT_ID": "x"]) == "appnative:x")
        #expect(throws: AuthError(.configuration, "")) { try audience([:]) }
        #expect(throws: AuthError(.configuration, "")) { try audience(["ENTRA_AUDIENCE": "two words"]) }
        #expect(throws: AuthError(.configuration, "")) { try audience(["SESSION_AUDIENCE": SessionCookieCodec.audience]) }
        let error = #expect(throws: AuthError.self) { try audience(["SESSION_AUDIENCE": "a b"]) }
        #expect(error?.reason.contains("SESSION_AUDIENCE") == true)

        let base = ["SESSION_SECRET": Cookies.secret, "ENTRA_AUDIENCE": "app"]
        let settings = try #require(try SessionCookieSettings.fromEnvironment(base))
        #expect(settings.audience == "appnative:app")
        #expect(!settings.acceptsReferenceCookies)
        for (text, accepts) in [("true", true), ("TRUE", true), ("1", true), ("on", true), ("false", false), ("", false), ("no", false), ("OFF", false)] {
            let read = try SessionCookieSettings.fromEnvironment(base.merging(["SESSION_ACCEPT_REFERENCE_COOKIES": text]) { $1 })
            #expect(read?.acceptsReferenceCookies == accepts, "\(text)")
        }
        let bad = #expect(throws: AuthError.self) {
            try SessionCookieSettings.fromEnvironment(base.merging(["SESSION_ACCEPT_REFERENCE_COOKIES": "maybe"]) { $1 })
        }
        #expect(bad?.reason.contains("SESSION_ACCEPT_REFERENCE_COOKIES") == true)
    }

    @Test("the authenticator answers a foreign cookie as no cookie (401 Not authenticated), logging `deployment`")
    func authenticatorReason() throws {
        let configuration = try EntraConfiguration(tenantID: Cookies.tenant, audiences: ["app"])
        let verifier = EntraTokenVerifier(configuration: configuration, fetcher: CountingFetcher(document: #"{"keys":[]}"#),
                                          logger: .disabled, metrics: MetricsRegistry())
        let authenticator = RequestAuthenticator(verifier: verifier, cookies: try Cookies.codec(deployment: Self.other))
        let value = try Cookies.codec().value(for: Cookies.user)
        for cookieHeaders in [["bms_session=\(value)"], ["theme=1", "bms_session=\(value)"]] {
            guard case .rejected(let rejection) = authenticator.authenticateImmediately(authorization: nil, cookieHeaders: cookieHeaders) else {
                Issue.record("a foreign cookie was accepted")
                continue
            }
            #expect(rejection.status == 401)
            #expect(rejection.detail == "Not authenticated")
            #expect(rejection.headers.map { "\($0.name): \($0.value)" } == ["WWW-Authenticate: Bearer"])
            #expect(rejection.reason == "deployment")
        }
        guard case .rejected(let none) = authenticator.authenticateImmediately(authorization: nil, cookieHeaders: []) else {
            Issue.record("no credential was accepted")
            return
        }
        #expect(none.reason == "not_authenticated")
    }
}
