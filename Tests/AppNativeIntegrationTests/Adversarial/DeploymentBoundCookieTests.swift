import AppNativeDevPeers
import AppNativeHTTP
import AppNativeTesting
import Foundation
import Testing

extension Adversarial {
    /// Two gateways of one tenant that share `SESSION_SECRET` (two apps, each
    /// with Entra's "assignment required") must not accept each other's session cookies, or a user
    /// assigned to one app walks into the other with the cookie the first one gave them. Replicas of
    /// one deployment still share cookies, the Python reference still reads the gateway's cookies, and
    /// the reference's own cookies are read only while `SESSION_ACCEPT_REFERENCE_COOKIES` is on
    /// (docs/migration.md step 1).
    @Suite("Adversarial: session cookies bound to their deployment", .serialized)
    struct DeploymentBoundCookieTests {
        static let otherAudience = "appnative-dev-second-app"
        static let protected = ["PUBLIC_PATHS": "/public"]
        static let referencePython = ProxyFixture.root + "/.build/reference-venv/bin/python"
        static let referencePeer = ProxyFixture.root + "/Tests/Peers/reference_session_peer.py"

        /// The session cookie (`name=value`) a gateway issues for a dev token of `audience`.
        static func cookie(from port: Int, audience: String = DevIdentityProvider.audience) async throws -> String {
            let token = try ProxyFixture.devProvider().token(issuedAt: Date().timeIntervalSince1970, audience: audience)
            let response = try await blocking {
                try RawHTTPClient.request(port: port, method: "POST", "/.auth/session", headers: ["Authorization": "Bearer \(token)"])
            }
            #expect(response.status == 204, "POST /.auth/session: \(response.status) \(response.bodyText)")
            return try #require(response.head.headers.first("Set-Cookie")?.split(separator: ";").first.map(String.init))
        }

        static func status(_ port: Int, cookie: String) async throws -> Int {
            try await blocking { try RawHTTPClient.get(port: port, "/echo", headers: ["Cookie": cookie]) }.status
        }

        /// Polls the admin listener's metrics until `appnative_auth_outcomes_total` counts a rejection for `reason`.
        static func countsRejection(_ gateway: GatewayProcess, reason: String) async -> Bool {
            let adminPort = gateway.adminPort
            return await eventually {
                let text = (try? await blocking { try RawHTTPClient.get(port: adminPort, "/metrics") })?.bodyText ?? ""
                return text.split(separator: "\n").contains { line in
                    line.hasPrefix("appnative_auth_outcomes_total{") && line.contains("reason=\"\(reason)\"") && line.contains("result=\"rejected\"")
                }
            }
        }

        @Test("two apps of one tenant with one secret: a cookie from one is 401 at the other, 200 at its own")
        func otherApplicationRefuses() async throws {
            let first = try await ProxyFixture.start(Self.protected)
            defer { first.stop() }
            let second = try await ProxyFixture.start(Self.protected.merging(["ENTRA_AUDIENCE": Self.otherAudience]) { $1 })
            defer { second.stop() }
            let firstCookie = try await Self.cookie(from: first.port)
            let secondCookie = try await Self.cookie(from: second.port, audience: Self.otherAudience)

            #expect(try await Self.status(first.port, cookie: firstCookie) == 200)
            #expect(try await Self.status(second.port, cookie: secondCookie) == 200)
            let crossed = try await blocking { [port = second.port] in try RawHTTPClient.get(port: port, "/echo", headers: ["Cookie": firstCookie]) }
            #expect(crossed.status == 401, "the first app's cookie opened the second app")
            #expect(crossed.bodyText == #"{"detail":"Not authenticated"}"#)
            #expect(crossed.head.headers.first("WWW-Authenticate") == "Bearer")
            #expect(try await Self.status(first.port, cookie: secondCookie) == 401, "the second app's cookie opened the first app")
            #expect(await Self.countsRejection(second.gateway, reason: "deployment"), "the refusal is logged as `deployment`")
        }

        @Test("SESSION_AUDIENCE separates two deployments of the same app; replicas of one deployment share cookies")
        func sessionAudience() async throws {
            let replicaA = try await ProxyFixture.start(Self.protected)
            defer { replicaA.stop() }
            let replicaB = try await ProxyFixture.start(Self.protected)
            defer { replicaB.stop() }
            let staging = try await ProxyFixture.start(Self.protected.merging(["SESSION_AUDIENCE": "staging"]) { $1 })
            defer { staging.stop() }
            let cookie = try await Self.cookie(from: replicaA.port)
            #expect(try await Self.status(replicaB.port, cookie: cookie) == 200, "a replica of the same deployment")
            #expect(try await Self.status(staging.port, cookie: cookie) == 401)
            let stagingCookie = try await Self.cookie(from: staging.port)
            #expect(try await Self.status(staging.port, cookie: stagingCookie) == 200)
            #expect(try await Self.status(replicaA.port, cookie: stagingCookie) == 401)
        }

        @Test("the reference's cookies: refused by default, read with SESSION_ACCEPT_REFERENCE_COOKIES; the reference reads the gateway's")
        func referenceCookies() async throws {
            try #require(FileManager.default.isExecutableFile(atPath: Self.referencePython), "run scripts/install-reference.sh (make test does)")
            let user = DevIdentityProvider.User()
            let issued = try await ProcessRunner.run(Self.referencePython, [
                Self.referencePeer, "issue", "--secret", ProxyFixture.sessionSecret, "--oid", user.objectID, "--email", user.email,
                "--tenant", DevIdentityProvider.tenantID,
            ])
            #expect(issued.status == 0, "\(issued.stderr)")
            let referenceCookie = "bms_session=" + issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

            let strict = try await ProxyFixture.start(Self.protected)
            defer { strict.stop() }
            #expect(try await Self.status(strict.port, cookie: referenceCookie) == 401, "a reference cookie names no deployment")
            #expect(await Self.countsRejection(strict.gateway, reason: "deployment"))

            let migrating = try await ProxyFixture.start(Self.protected.merging(["SESSION_ACCEPT_REFERENCE_COOKIES": "true"]) { $1 })
            defer { migrating.stop() }
            let other = try await ProxyFixture.start(Self.protected.merging(["ENTRA_AUDIENCE": Self.otherAudience]) { $1 })
            defer { other.stop() }
            #expect(try await Self.status(migrating.port, cookie: referenceCookie) == 200, "migration: the reference's cookie is read")
            #expect(await eventually { migrating.gateway.logs.contains("SESSION_ACCEPT_REFERENCE_COOKIES is on") }, "the migration switch is not announced")
            let foreign = try await Self.cookie(from: other.port, audience: Self.otherAudience)
            #expect(try await Self.status(migrating.port, cookie: foreign) == 401, "migration does not open the door to another deployment's cookie")

            // During the migration the reference reads the gateway's cookies (docs/migration.md step 1).
            let gatewayCookie = try await Self.cookie(from: migrating.port)
            let value = String(gatewayCookie.dropFirst("bms_session=".count))
            let read = try await ProcessRunner.run(Self.referencePython, [
                Self.referencePeer, "read", "--secret", ProxyFixture.sessionSecret, "--cookie", value,
            ])
            #expect(read.status == 0, "\(read.stderr)")
            #expect(read.stdout.contains("\"oid\": \"\(user.objectID)\""), "the reference did not read the gateway's cookie: \(read.stdout)")
        }
    }
}
