import AppNativeDevPeers
import AppNativeTesting
import Foundation
import Testing

/// `;` path parameters and prefixes that end inside a segment, at every door that matches a path:
/// public paths, the access policy, native routes and the gateway's endpoints (forward-auth's
/// `verify` is in AdversarialForwardAuthTests). Servlet containers drop `;` parameters before routing,
/// so `/public/..;/admin/users` is `/admin/users` to Tomcat, Jetty and Spring.
@Suite("Adversarial: path parameters and prefix boundaries", .serialized)
struct AdversarialPathTests {
    static let policy = #"{"rules":[{"path":"/echo/admin","roles":["Admin"]}]}"#

    static func withGateway<T>(publicPaths: String, _ body: (Int) async throws -> T) async throws -> T {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID().uuidString).json")
        try policy.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let fixture = try await ProxyFixture.start(["PUBLIC_PATHS": publicPaths, "ACCESS_POLICY_FILE": file.path])
        defer { fixture.stop() }
        return try await body(fixture.port)
    }

    static func get(_ port: Int, _ target: String, token: String? = nil) async throws -> RawHTTPClient.Response {
        try await blocking { try RawHTTPClient.get(port: port, target, headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:]) }
    }

    static func userToken() throws -> String { try ProxyFixture.devProvider().token(issuedAt: Date().timeIntervalSince1970) }

    @Test("a dot segment with ; parameters is refused wherever a path is matched", arguments: [
        "/echo/public/..;/admin/users", "/echo/public/.;/admin/users", "/echo/public/..;x=1/admin/users", "/echo/public/;/admin",
        "/api/..;/devices", "/.auth/..;/me", "/echo/admin/..;/x",
    ])
    func dotSegmentsWithParameters(_ target: String) async throws {
        try await Self.withGateway(publicPaths: "/echo/public/") { port in
            #expect(try await Self.get(port, target).status == 400, "\(target) without a credential")
            let token = try Self.userToken()
            #expect(try await Self.get(port, target, token: token).status == 400, "\(target) with a credential")
        }
    }

    @Test("a ; inside an ordinary segment still works, and decides as the strictest reading")
    func parametersInOrdinarySegments() async throws {
        try await Self.withGateway(publicPaths: "/echo/public/") { port in
            let token = try Self.userToken()
            let open = try await Self.get(port, "/echo/public/a;b/c")
            #expect(open.status == 200)
            #expect(try ProxyFixture.echo(open)["target"] as? String == "/echo/public/a;b/c")
            // To a servlet container this is /echo/admin/users: the policy's rule applies.
            #expect(try await Self.get(port, "/echo/admin;x/users", token: token).status == 403)
            // Public only if public in every reading: /echo/public;x is /echo/public to Tomcat only.
            #expect(try await Self.get(port, "/echo/public;x/a").status == 401)
            // A native route is matched without parameters, so its validation is not skipped.
            #expect(try await Self.get(port, "/api/devices;jsessionid=1", token: token).status == 405)
        }
    }

    @Test("prefixes match on segment boundaries: /public never opens /publication-admin")
    func segmentBoundaries() async throws {
        try await Self.withGateway(publicPaths: "/echo/public") { port in
            #expect(try await Self.get(port, "/echo/public").status == 200)
            #expect(try await Self.get(port, "/echo/public/x").status == 200)
            #expect(try await Self.get(port, "/echo/publication-admin").status == 401)
            #expect(try await Self.get(port, "/echo/publicx").status == 401)
            // The policy's /echo/admin covers /echo/admin and below, not /echo/administration.
            let token = try Self.userToken()
            #expect(try await Self.get(port, "/echo/admin", token: token).status == 403)
            #expect(try await Self.get(port, "/echo/admin/x", token: token).status == 403)
            #expect(try await Self.get(port, "/echo/administration", token: token).status == 200)
        }
        try await Self.withGateway(publicPaths: "/echo/public/") { (port: Int) async throws in
            #expect(try await Self.get(port, "/echo/public").status == 200)
            #expect(try await Self.get(port, "/echo/publication-admin").status == 401)
        }
    }
}
