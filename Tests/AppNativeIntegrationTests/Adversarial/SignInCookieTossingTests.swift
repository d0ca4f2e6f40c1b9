import AppNativeDevPeers
import AppNativeHTTP
import AppNativeSignIn
import AppNativeTesting
import Foundation
import Testing

extension Adversarial {
    /// Cookie tossing at the browser sign-in: a sibling subdomain (or anything that can set a cookie
    /// for a parent domain) plants its own attempt cookie, so the attacker's code at the callback
    /// would sign the victim in as the attacker; and a second session cookie of the same name.
    @Suite("Adversarial: sign-in cookies", .serialized)
    struct SignInCookieTossingTests {
        static let publicURL = "https://app.example.test"

        /// The request target of a callback URL on `publicURL`.
        static func target(of url: String) throws -> String {
            try #require(url.hasPrefix(publicURL + "/") ? String(url.dropFirst(publicURL.count)) : nil)
        }

        @Test("on an https origin the attempt cookie is __Host- (Secure, Path=/, no Domain); one planted without the prefix is refused")
        func plantedAttemptCookie() async throws {
            let setup = try await BrowserSignInTests.start(["PUBLIC_URL": Self.publicURL])
            defer { setup.stop() }
            setup.provider.register(redirectURI: Self.publicURL + "/.auth/callback")
            let port = setup.port
            // The attacker starts an attempt of their own and signs in at the provider as themself.
            let login = try await blocking {
                try BrowserSignInTests.send(port: port, "/.auth/login?redirect=/", headers: BrowserSignInTests.navigation)
            }
            #expect(login.status == 302)
            let setCookie = try #require(login.head.headers.values("Set-Cookie").first)
            let attributes = setCookie.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            #expect(setCookie.hasPrefix("__Host-" + SignInStateCookie.namePrefix), "\(setCookie)")
            #expect(attributes.contains("secure") && attributes.contains("path=/") && attributes.contains("httponly"), "\(setCookie)")
            #expect(!attributes.contains { $0.hasPrefix("domain") }, "\(setCookie)")
            let genuine = BrowserSignInTests.pair(setCookie)
            let attackerCallback = try await BrowserSignInTests.choose("sam", at: try #require(login.head.headers.first("Location")))
            let target = try Self.target(of: attackerCallback)
            // What the victim's browser sends after a sibling subdomain set the attacker's cookie with
            // `Domain=example.test` (a browser refuses a `__Host-` cookie with a Domain, so the planted
            // one can only carry the bare name).
            let bare = genuine.hasPrefix("__Host-") ? String(genuine.dropFirst("__Host-".count)) : genuine
            for planted in [bare, "theme=dark; " + bare] {
                let response = try await blocking {
                    try BrowserSignInTests.send(
                        port: port, target, headers: BrowserSignInTests.navigation.merging(["Cookie": planted, "Sec-Fetch-Site": "cross-site"]) { $1 })
                }
                #expect(response.status == 400, "a planted attempt cookie was accepted: \(response.status)")
                #expect(response.bodyText.contains("state_missing"))
                #expect(!response.head.headers.values("Set-Cookie").contains { $0.hasPrefix("bms_session=ey") })
            }
            // The cookie the gateway set itself still finishes the attempt.
            let finished = try await blocking {
                try BrowserSignInTests.send(
                    port: port, target, headers: BrowserSignInTests.navigation.merging(["Cookie": genuine, "Sec-Fetch-Site": "cross-site"]) { $1 })
            }
            #expect(finished.status == 302)
            #expect(finished.head.headers.values("Set-Cookie").contains { $0.hasPrefix("bms_session=ey") })
            #expect(finished.head.headers.values("Set-Cookie").contains { $0.hasPrefix("__Host-" + SignInStateCookie.namePrefix) && $0.contains("Max-Age=0") })
        }

        @Test("the attempt cookie (Path=/ on https) never reaches the upstream: its verifier and nonce stay at the gateway")
        func attemptCookieIsNotForwarded() async throws {
            let setup = try await BrowserSignInTests.start(["PUBLIC_URL": Self.publicURL, "PUBLIC_PATHS": "/public,/echo"])
            defer { setup.stop() }
            let port = setup.port
            let login = try await blocking {
                try BrowserSignInTests.send(port: port, "/.auth/login?redirect=/", headers: BrowserSignInTests.navigation)
            }
            let attempt = BrowserSignInTests.pair(try #require(login.head.headers.values("Set-Cookie").first))
            #expect(attempt.hasPrefix("__Host-bms_signin_"))
            let bare = String(attempt.dropFirst("__Host-".count))
            let cookie = "theme=dark; " + attempt + "; lang=en; " + bare
            let echoed = try await blocking { try RawHTTPClient.get(port: port, "/echo/page", headers: ["Cookie": cookie]) }
            #expect(echoed.status == 200)
            let headers = try ProxyFixture.echoedHeaders(echoed)
            #expect(headers.first { $0.0 == "cookie" }?.1 == "theme=dark; lang=en", "\(headers.filter { $0.0 == "cookie" })")
        }

        @Test("two session cookies of the session cookie's name that name different users: no session (401), never the first one's")
        func twoSessionCookies() async throws {
            let fixture = try await ProxyFixture.start(["PUBLIC_PATHS": "/public", "SESSION_COOKIE_NAME": "__Host-bms_session", "SESSION_SECURE": "true"])
            defer { fixture.stop() }
            let port = fixture.port
            let provider = try ProxyFixture.devProvider()
            var victim = DevIdentityProvider.User()
            victim.objectID = "11111111-1111-4111-8111-111111111111"
            victim.email = "victim@example.com"
            var attacker = DevIdentityProvider.User()
            attacker.objectID = "22222222-2222-4222-8222-222222222222"
            attacker.email = "attacker@example.com"
            func cookie(for user: DevIdentityProvider.User) async throws -> String {
                let token = try provider.token(for: user, issuedAt: Date().timeIntervalSince1970)
                let response = try await blocking { try RawHTTPClient.get(port: port, "/echo", headers: ["Authorization": "Bearer \(token)"]) }
                let setCookie = try #require(response.head.headers.first("Set-Cookie"))
                #expect(setCookie.hasPrefix("__Host-bms_session=ey"))
                return BrowserSignInTests.pair(setCookie)
            }
            let victimCookie = try await cookie(for: victim)
            let attackerCookie = try await cookie(for: attacker)
            let secondVictimCookie = try await cookie(for: victim)
            func echo(_ cookieFields: [String]) async throws -> RawHTTPClient.Response {
                try await blocking {
                    let client = try RawHTTPClient(port: port)
                    var request = "GET /echo HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
                    for field in cookieFields { request += "Cookie: \(field)\r\n" }
                    try client.send(Array((request + "\r\n").utf8))
                    return try client.readResponse(to: "GET")
                }
            }
            for fields in [[attackerCookie + "; " + victimCookie], [victimCookie + "; " + attackerCookie], [attackerCookie, victimCookie]] {
                let response = try await echo(fields)
                #expect(response.status == 401, "two session cookies of different users were accepted: \(fields.count) field(s)")
            }
            // Two of the same user (a renewal racing an older copy), or one beside a broken one: signed in.
            for fields in [[victimCookie + "; " + secondVictimCookie], ["__Host-bms_session=forged; " + victimCookie], [victimCookie, "__Host-bms_session=x"]] {
                let response = try await echo(fields)
                #expect(response.status == 200)
                let headers = try ProxyFixture.echoedHeaders(response)
                #expect(headers.contains { $0.0 == "x-appnative-user-email" && $0.1 == "victim@example.com" })
            }
        }
    }
}
