import AppNativeDevPeers
import AppNativeHTTP
import AppNativeJSON
import AppNativeTesting
import Foundation
import Testing

/// The tenant's keys at start-up through the real gateway: loaded in the background, retried
/// until they arrive, with readiness following them and tokens refused at once meanwhile.
@Suite("Key loading at start-up", .serialized)
struct KeyLoadingTests {
    @Test("a JWKS endpoint failing at start-up: tokens get 503 at once, /readyz turns 200 with no token sent")
    func recoversWithoutRequests() async throws {
        let provider = try ProxyFixture.devProvider()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json")
        try provider.jwksDocument.write(to: file, atomically: true, encoding: .utf8)
        // 500 for the first 3 downloads, and until the test has seen the failing phase: on a
        // loaded machine the backoff alone could pass before the first probe.
        let jwks = try await LoopbackPeer.start(ProcessRunner.python, [
            ProxyFixture.root + "/Tests/Peers/jwks_server.py", "--document", file.path, "--fail-first", "3", "--until-released",
        ])
        defer { jwks.stop() }
        let gateway = try await GatewayProcess.start(environment: [
            "UPSTREAM_URL": "http://127.0.0.1:1",
            "ENTRA_TENANT_ID": DevIdentityProvider.tenantID, "ENTRA_AUDIENCE": DevIdentityProvider.audience,
            "ENTRA_JWKS_URL": "http://127.0.0.1:\(jwks.port)/keys",
        ])
        defer { gateway.stop() }
        let port = gateway.port, adminPort = gateway.adminPort, jwksPort = jwks.port

        // The first download failed before the ready line.
        let notReady = try await blocking { try RawHTTPClient.get(port: adminPort, "/readyz") }
        #expect(notReady.status == 503)
        let token = try provider.token(issuedAt: Date().timeIntervalSince1970)
        let (refused, waited) = try await timedBlocking {
            try RawHTTPClient.get(port: port, "/echo", headers: ["Authorization": "Bearer \(token)"])
        }
        #expect(refused.status == 503)
        #expect(refused.head.headers.first("Retry-After") == "30")
        #expect(refused.bodyText == #"{"detail":"Sign-in is temporarily unavailable"}"#)
        // Answered without waiting for a key reload: the gateway's own count of requests that
        // waited stays zero (how long the answer took depends on the machine's load).
        let metrics = try await blocking { try RawHTTPClient.get(port: adminPort, "/metrics").bodyText }
        let keyWaits = metrics.split(separator: "\n").first { $0.hasPrefix("appnative_auth_key_waits_total ") }
        #expect(keyWaits == "appnative_auth_key_waits_total 0", "the token waited for a key reload (answered after \(waited)): \(keyWaits ?? "no key_waits metric")")

        // No token from here on: the background retries alone make the gateway ready.
        let failedDownloads = try await Self.keyDownloads(jwksPort)
        #expect(failedDownloads >= 1)
        _ = try await blocking { try RawHTTPClient.get(port: jwksPort, "/release") }
        var status = notReady.status
        _ = await eventually(timeout: .seconds(60), pollingEvery: .milliseconds(100)) {
            status = (try? await blocking { try RawHTTPClient.get(port: adminPort, "/readyz") })?.status ?? status
            return status == 200
        }
        #expect(status == 200, "not ready within 60 s: \(gateway.logs.suffix(1500))")
        // At least three failures, then one success.
        #expect(try await Self.keyDownloads(jwksPort) >= 4)
        // And the token now passes authentication (the upstream is unreachable on purpose).
        let accepted = try await blocking { try RawHTTPClient.get(port: port, "/echo", headers: ["Authorization": "Bearer \(token)"]) }
        #expect(accepted.status != 503 && accepted.status != 401, "status \(accepted.status)")
        #expect(!gateway.logs.contains(token), "a token reached the logs")
    }

    /// How many times the key server was asked for the keys.
    static func keyDownloads(_ port: Int) async throws -> Int {
        let stats = try await blocking { try RawHTTPClient.get(port: port, "/stats") }
        let counts = try #require(try JSONParser().parse(Array(stats.bodyText.utf8)).objectValue)
        return Int(counts["/keys"]?.numberValue?.int64 ?? 0)
    }
}
