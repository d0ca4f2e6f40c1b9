import AppNativeDevPeers
import AppNativeHTTP
import AppNativeSignIn
import AppNativeTesting
import Foundation
import Testing

extension Adversarial {
    /// Work the sign-in causes elsewhere: every start is a redirect to the provider and every callback
    /// with a code a client-authenticated call to its token endpoint. Both are limited per client address.
    @Suite("Adversarial: sign-in limits", .serialized)
    struct SignInRateLimitTests {
        /// One a minute: the bucket refills once in 60 s, so a loaded machine's slow requests cannot
        /// refill it between the flood and the checks after it (at 5 a minute it refilled in 12 s).
        static let limits = ["SIGN_IN_RATE_LIMIT": "1", "SIGN_IN_REDEEM_RATE_LIMIT": "1", "TRUSTED_PROXIES": "127.0.0.1/32"]

        static func login(_ port: Int, from address: String?) async throws -> RawHTTPClient.Response {
            var headers = BrowserSignInTests.navigation
            if let address { headers["X-Forwarded-For"] = address }
            let fields = headers
            return try await blocking { try BrowserSignInTests.send(port: port, "/.auth/login?redirect=/app", headers: fields) }
        }

        static func expectTooMany(_ response: RawHTTPClient.Response) {
            #expect(response.status == 429)
            #expect(response.head.headers.first("Content-Type") == "text/html; charset=utf-8")
            #expect(Int(response.head.headers.first("Retry-After") ?? "") ?? 0 >= 1)
            #expect(response.bodyText.contains("rate_limited"))
            #expect(response.bodyText.contains("<html"))
            #expect(response.head.headers.first("Set-Cookie") == nil)
        }

        @Test("a flood of sign-in starts from one address gets 429 pages; another address still signs in")
        func floodOfStarts() async throws {
            let setup = try await BrowserSignInTests.start(Self.limits)
            defer { setup.stop() }
            let port = setup.port
            var limited: RawHTTPClient.Response?
            for _ in 0..<40 {
                let response = try await Self.login(port, from: "203.0.113.7")
                if response.status == 429 {
                    limited = response
                    break
                }
                #expect(response.status == 302)
            }
            Self.expectTooMany(try #require(limited, "40 sign-in starts from one address were all answered"))
            // The navigation redirect is a start too: of two in a row, one at least is limited
            // (the bucket may refill once meanwhile on a slow machine, never twice).
            var navigation: RawHTTPClient.Response?
            for _ in 0..<2 where navigation?.status != 429 {
                navigation = try await blocking {
                    try BrowserSignInTests.send(
                        port: port, "/app", headers: BrowserSignInTests.navigation.merging(["X-Forwarded-For": "203.0.113.7"]) { $1 })
                }
            }
            Self.expectTooMany(try #require(navigation))
            // Someone else signs in all the way.
            let other = try await Self.login(port, from: "198.51.100.9")
            #expect(other.status == 302)
            let cookie = BrowserSignInTests.pair(try #require(other.head.headers.values("Set-Cookie").first))
            let callback = try await BrowserSignInTests.choose("zoe", at: try #require(other.head.headers.first("Location")))
            let (_, target) = try BrowserSignInTests.split(callback)
            let finished = try await blocking {
                try BrowserSignInTests.send(
                    port: port, target, headers: BrowserSignInTests.navigation.merging(["Cookie": cookie, "X-Forwarded-For": "198.51.100.9"]) { $1 })
            }
            #expect(finished.status == 302)
            #expect(finished.head.headers.values("Set-Cookie").contains { $0.hasPrefix("bms_session=ey") })
        }

        @Test("a client that is not a trusted proxy cannot escape its limit with X-Forwarded-For")
        func spoofedForwardedFor() async throws {
            let setup = try await BrowserSignInTests.start(["SIGN_IN_RATE_LIMIT": "5"])
            defer { setup.stop() }
            let port = setup.port
            var statuses = [Int]()
            for index in 0..<40 {
                let response = try await Self.login(port, from: "192.0.2.\(index + 1)")
                statuses.append(response.status)
                if response.status == 429 { break }
            }
            #expect(statuses.last == 429, "\(statuses)")
        }

        @Test("a flood of callbacks with junk codes from one address gets 429 pages before any redemption")
        func floodOfRedemptions() async throws {
            let setup = try await BrowserSignInTests.start(Self.limits)
            defer { setup.stop() }
            let port = setup.port
            var statuses = [Int]()
            var limited: RawHTTPClient.Response?
            for _ in 0..<40 {
                let state = String(repeating: "B", count: 43)
                let response = try await blocking {
                    try BrowserSignInTests.send(
                        port: port, "/.auth/callback?code=junk&state=\(state)",
                        headers: BrowserSignInTests.navigation.merging(["X-Forwarded-For": "203.0.113.8"]) { $1 })
                }
                statuses.append(response.status)
                if response.status == 429 {
                    limited = response
                    break
                }
            }
            Self.expectTooMany(try #require(limited, "\(statuses)"))
            // Sign-in starts from that address have their own budget.
            let start = try await Self.login(port, from: "203.0.113.8")
            #expect(start.status == 302)
        }
    }
}
