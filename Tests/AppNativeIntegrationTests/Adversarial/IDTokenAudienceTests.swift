import AppNativeDevPeers
import AppNativeHTTP
import AppNativeSignIn
import AppNativeTesting
import Foundation
import Testing

extension Adversarial {
    /// The ID token's audience (OpenID Connect Core §3.1.3.7) and the callback's issuer (RFC 9207)
    /// at the browser sign-in, against a provider told to misbehave.
    @Suite("Adversarial: ID token audience and issuer", .serialized)
    struct IDTokenAudienceTests {
        /// Signs `zoe` in through a provider behaving as `quirks`; the callback's answer.
        static func signIn(_ quirks: DevSignInQuirks) async throws -> RawHTTPClient.Response {
            // Set before the gateway starts: it reads discovery once at start.
            let setup = try await BrowserSignInTests.start(quirks: quirks)
            defer { setup.stop() }
            let (authorize, cookie) = try await BrowserSignInTests.startSignIn(setup, "/app")
            let callback = try await BrowserSignInTests.choose("zoe", at: authorize)
            return try await BrowserSignInTests.callback(setup, callback, cookie: cookie)
        }

        static func expectRefused(_ response: RawHTTPClient.Response, _ reason: String) {
            #expect(response.status >= 400 && response.status < 500, "\(response.status)")
            #expect(response.bodyText.contains(reason), "\(response.bodyText)")
            #expect(!response.head.headers.values("Set-Cookie").contains { $0.hasPrefix("bms_session=ey") })
        }

        @Test("an ID token whose aud also names an untrusted audience is refused, with or without azp")
        func extraAudience() async throws {
            let withoutParty = try await Self.signIn(DevSignInQuirks(extraAudiences: ["https://evil.example/api"]))
            Self.expectRefused(withoutParty, "token_invalid")
            let withParty = try await Self.signIn(
                DevSignInQuirks(extraAudiences: ["https://evil.example/api"], authorizedParty: DevIdentityProvider.signInClientID))
            Self.expectRefused(withParty, "token_invalid")
        }

        @Test("an azp naming another client is refused; one naming this client is accepted")
        func authorizedParty() async throws {
            Self.expectRefused(try await Self.signIn(DevSignInQuirks(authorizedParty: "another-client")), "token_invalid")
            let accepted = try await Self.signIn(DevSignInQuirks(authorizedParty: DevIdentityProvider.signInClientID))
            #expect(accepted.status == 302)
        }

        @Test("discovery advertises the iss parameter: a callback without iss is refused (issuer_missing); with it, signed in")
        func issuerParameterRequired() async throws {
            let missing = try await Self.signIn(DevSignInQuirks(advertisesIssuerParameter: true))
            Self.expectRefused(missing, "issuer_missing")
            let present = try await Self.signIn(DevSignInQuirks(advertisesIssuerParameter: true, sendsIssuerParameter: true))
            #expect(present.status == 302)
            #expect(present.head.headers.values("Set-Cookie").contains { $0.hasPrefix("bms_session=ey") })
            // Not advertised: a callback without iss is accepted.
            let notAdvertised = try await Self.signIn(DevSignInQuirks())
            #expect(notAdvertised.status == 302)
        }
    }
}
