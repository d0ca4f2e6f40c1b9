import AppNativeAuth
import AppNativeDevPeers
import AppNativeHTTP
import AppNativeTesting
import Foundation
import Testing

extension Adversarial {
    /// Entra tokens and session cookies are two kinds of credential with two
    /// leeways (contract/auth.md §3 notes, §8.4). A token that expired 45 s ago is still accepted, as
    /// the reference's verifier accepts it (60 s by default); a session cookie that expired 45 s ago is
    /// refused, as the reference's cookie reader refuses it (a fixed 30 s).
    @Suite("Adversarial: credential leeway", .serialized)
    struct CredentialLeewayTests {
        static let protected = ["PUBLIC_PATHS": "/public"]

        /// An Entra token (dev provider) that expired `secondsAgo` seconds ago.
        static func token(expiredSecondsAgo secondsAgo: Double) throws -> String {
            try ProxyFixture.devProvider().token(issuedAt: Date().timeIntervalSince1970 - 600 - secondsAgo, lifetime: .seconds(600))
        }

        /// A session cookie (`name=value`) for the gateway `fixture` started, which expired
        /// `secondsAgo` seconds ago: minted with its secret and its settings, as the gateway mints one.
        static func cookie(expiredSecondsAgo secondsAgo: Double, environment: [String: String]) throws -> String {
            let settings = try #require(try SessionCookieSettings.fromEnvironment(environment.merging([
                "SESSION_SECRET": ProxyFixture.sessionSecret, "SESSION_MAX_AGE": "600",
                "ENTRA_TENANT_ID": DevIdentityProvider.tenantID, "ENTRA_AUDIENCE": DevIdentityProvider.audience,
            ]) { old, _ in old }))
            let time = ManualTimeSource(wallSeconds: Date().timeIntervalSince1970 - 600 - secondsAgo)
            let codec = SessionCookieCodec(settings: settings, tenantID: DevIdentityProvider.tenantID, time: time)
            let user = DevIdentityProvider.User()
            return settings.name + "=" + codec.value(for: UserIdentity(
                objectID: user.objectID, email: user.email, tenantID: DevIdentityProvider.tenantID, name: user.name))
        }

        static func get(_ port: Int, _ headers: [String: String]) async throws -> RawHTTPClient.Response {
            try await blocking { try RawHTTPClient.get(port: port, "/echo", headers: headers) }
        }

        @Test("by default a token expired 45 s ago is accepted, one expired 75 s ago is refused; a cookie expired 45 s ago is refused")
        func defaults() async throws {
            let environment = Self.protected.merging(["SESSION_MAX_AGE": "600"]) { $1 }
            let fixture = try await ProxyFixture.start(environment)
            defer { fixture.stop() }
            let port = fixture.port

            let lateToken = try await Self.get(port, ["Authorization": "Bearer \(try Self.token(expiredSecondsAgo: 45))"])
            #expect(lateToken.status == 200, "a token 45 s past exp is inside the 60 s token leeway (the reference accepts it)")
            let staleToken = try await Self.get(port, ["Authorization": "Bearer \(try Self.token(expiredSecondsAgo: 75))"])
            #expect(staleToken.status == 401)
            #expect(staleToken.head.headers.first("WWW-Authenticate") == #"Bearer error="invalid_token""#)

            let lateCookie = try await Self.get(port, ["Cookie": try Self.cookie(expiredSecondsAgo: 20, environment: environment)])
            #expect(lateCookie.status == 200, "a cookie 20 s past exp is inside the cookie's 30 s leeway")
            let staleCookie = try await Self.get(port, ["Cookie": try Self.cookie(expiredSecondsAgo: 45, environment: environment)])
            #expect(staleCookie.status == 401, "a cookie 45 s past exp is outside the cookie's fixed 30 s leeway")
            #expect(staleCookie.bodyText == #"{"detail":"Not authenticated"}"#)
        }

        @Test("CLOCK_SKEW_LEEWAY governs tokens only: at 0 a token 5 s late is refused, a cookie 20 s late still accepted")
        func settingIsForTokensOnly() async throws {
            let environment = Self.protected.merging(["SESSION_MAX_AGE": "600", "CLOCK_SKEW_LEEWAY": "0", "CREDENTIAL_EXPIRY_GRACE": "30"]) { $1 }
            let fixture = try await ProxyFixture.start(environment)
            defer { fixture.stop() }
            let port = fixture.port
            let lateToken = try await Self.get(port, ["Authorization": "Bearer \(try Self.token(expiredSecondsAgo: 5))"])
            #expect(lateToken.status == 401)
            let lateCookie = try await Self.get(port, ["Cookie": try Self.cookie(expiredSecondsAgo: 20, environment: environment)])
            #expect(lateCookie.status == 200)
        }

        @Test("`config check` refuses a grace shorter than the token leeway, and with cookies one shorter than their 30 s")
        func graceCoversTheLeeway() async throws {
            let base = ProxyFixture.publicEnvironment(["UPSTREAM_URL": "http://127.0.0.1:1"])
            let tokens = try await CommandLineTests.run(["config", "check"], environment: base.merging(["CREDENTIAL_EXPIRY_GRACE": "45"]) { $1 })
            #expect(tokens.status == 2, "the default token leeway is 60 s: \(tokens.stderr)")
            #expect(tokens.stderr.contains("CREDENTIAL_EXPIRY_GRACE"), "\(tokens.stderr)")
            let cookies = try await CommandLineTests.run(["config", "check"], environment: base.merging([
                "CREDENTIAL_EXPIRY_GRACE": "10", "CLOCK_SKEW_LEEWAY": "10", "SESSION_SECRET": ProxyFixture.sessionSecret,
            ]) { $1 })
            #expect(cookies.status == 2, "session cookies are accepted 30 s past exp: \(cookies.stderr)")
            #expect(cookies.stderr.contains("CREDENTIAL_EXPIRY_GRACE"), "\(cookies.stderr)")
            let defaults = try await CommandLineTests.run(["config", "check"], environment: base.merging([
                "SESSION_SECRET": ProxyFixture.sessionSecret,
            ]) { $1 })
            #expect(defaults.status == 0, "\(defaults.stderr)")
        }
    }
}
