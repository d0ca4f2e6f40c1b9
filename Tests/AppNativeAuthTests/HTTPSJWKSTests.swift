import AppNativeAuth
import AppNativeClient
import AppNativeCore
import AppNativeTesting
import Foundation
import Testing

/// The libcurl fetch path against a real JWKS endpoint on loopback, over HTTPS with the test CA.
@Suite("JWKS over real HTTPS", .serialized)
struct HTTPSJWKSTests {
    static let root = ProcessRunner.repositoryRoot()

    static func startServer(document: String, tls: Bool = true) async throws -> LoopbackPeer {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json")
        try document.write(to: file, atomically: true, encoding: .utf8)
        var arguments = [root + "/Tests/Peers/jwks_server.py", "--document", file.path]
        if tls { arguments += ["--tls", root + "/keys/test/localhost.pem", root + "/keys/test/localhost-key.pem"] }
        return try await LoopbackPeer.start(ProcessRunner.python, arguments)
    }

    /// A verifier that has made its first download (loaded or failed).
    static func verifier(url: String, caFile: String?, factory: TestTokenFactory) async throws -> EntraTokenVerifier {
        let configuration = try EntraConfiguration(tenantID: EntraFixture.tenant, audiences: [EntraFixture.audience], jwksURL: url)
        let verifier = EntraTokenVerifier(
            configuration: configuration,
            fetcher: try HTTPJWKSFetcher(url: url, caFile: caFile),
            logger: .disabled,
            metrics: MetricsRegistry()
        )
        await verifier.keys.refresh()
        return verifier
    }

    static func token(_ factory: TestTokenFactory) throws -> String {
        let now = Int(Date().timeIntervalSince1970)
        return try factory.token(claims: [
            "aud": EntraFixture.audience, "iss": "https://login.microsoftonline.com/\(EntraFixture.tenant)/v2.0",
            "iat": now, "exp": now + 600, "oid": "o-1", "tid": EntraFixture.tenant, "email": "e@example.com",
        ])
    }

    @Test("keys fetched over HTTPS with the test CA verify a token")
    func httpsFetch() async throws {
        let factory = try TestTokenFactory.trusted()
        let server = try await Self.startServer(document: factory.jwksDocument)
        defer { server.stop() }
        let verifier = try await Self.verifier(
            url: "https://127.0.0.1:\(server.port)/keys",
            caFile: Self.root + "/keys/test/ca.pem",
            factory: factory
        )
        let identity = try await verifier.verify(try Self.token(factory))
        #expect(identity.user.email == "e@example.com")
    }

    @Test("an untrusted certificate, a redirect, an error status and an oversized body all mean 503")
    func failures() async throws {
        let factory = try TestTokenFactory.trusted()
        let server = try await Self.startServer(document: factory.jwksDocument)
        defer { server.stop() }
        let base = "https://127.0.0.1:\(server.port)"
        let cases: [(String, String?)] = [
            (base + "/keys", nil),  // system trust store does not know the test CA
            (base + "/redirect", Self.root + "/keys/test/ca.pem"),
            (base + "/status/500", Self.root + "/keys/test/ca.pem"),
            (base + "/big", Self.root + "/keys/test/ca.pem"),
        ]
        for (url, caFile) in cases {
            let verifier = try await Self.verifier(url: url, caFile: caFile, factory: factory)
            let error = await #expect(throws: AuthError.self, "\(url)") { try await verifier.verify(try Self.token(factory)) }
            #expect(error?.code == .keysUnavailable, "\(url)")
        }
    }

    @Test("plain http is accepted for loopback only")
    func cleartextOnlyOnLoopback() async throws {
        let factory = try TestTokenFactory.trusted()
        let server = try await Self.startServer(document: factory.jwksDocument, tls: false)
        defer { server.stop() }
        let verifier = try await Self.verifier(url: "http://127.0.0.1:\(server.port)/keys", caFile: nil, factory: factory)
        _ = try await verifier.verify(try Self.token(factory))
        // Refused at construction, before any traffic.
        #expect(throws: ClientError.self) { try HTTPJWKSFetcher(url: "http://login.microsoftonline.com/x/keys") }
        #expect(throws: AuthError(.configuration, "")) {
            try EntraConfiguration(tenantID: EntraFixture.tenant, audiences: ["a"], jwksURL: "http://keys.example/jwks")
        }
    }
}
