import AppNativeDevPeers
import AppNativeTesting
import Foundation

/// Runs blocking socket work off the cooperative pool (two threads here: blocking them stalls every test).
func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}

/// `blocking`, also telling how long `body` itself ran: the time a loaded machine's dispatch queue
/// held the work before it started is not the gateway's, and must not count against it.
func timedBlocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> (T, Duration) {
    try await blocking {
        let started = ContinuousClock.now
        let value = try body()
        return (value, ContinuousClock.now - started)
    }
}

/// An upstream peer and a gateway in front of it.
struct ProxyFixture {
    let upstream: LoopbackPeer
    let gateway: GatewayProcess

    static let root = ProcessRunner.repositoryRoot()

    static let sessionSecret = "integration-session-secret-0123456789abcdef"

    /// The identity settings a gateway needs to start, all paths public (plain-proxy tests).
    static func publicEnvironment(_ extra: [String: String]) -> [String: String] {
        var env = [
            "ENTRA_TENANT_ID": DevIdentityProvider.tenantID, "ENTRA_AUDIENCE": DevIdentityProvider.audience,
            "ENTRA_JWKS_URL": "http://127.0.0.1:9/keys", "PUBLIC_PATHS": "/",
        ]
        env.merge(extra) { $1 }
        return env
    }

    /// The dev identity provider (keys/dev) used as the tenant's key endpoint in tests.
    static func devProvider() throws -> DevIdentityProvider {
        try DevIdentityProvider.load(repositoryRoot: root)
    }

    /// Starts the upstream (serving the dev JWKS at /test-jwks) and a gateway configured for the
    /// dev tenant. Every path is public unless `environment` sets PUBLIC_PATHS.
    static func start(_ environment: [String: String] = [:]) async throws -> ProxyFixture {
        let jwksFile = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json")
        try devProvider().jwksDocument.write(to: jwksFile, atomically: true, encoding: .utf8)
        let upstream = try await LoopbackPeer.start(
            ProcessRunner.python, [root + "/Tests/Peers/upstream_peer.py", "--jwks", jwksFile.path]
        )
        var env = [
            "UPSTREAM_URL": "http://127.0.0.1:\(upstream.port)", "EVENT_LOOPS": "2",
            "ENTRA_TENANT_ID": DevIdentityProvider.tenantID, "ENTRA_AUDIENCE": DevIdentityProvider.audience,
            "ENTRA_JWKS_URL": "http://127.0.0.1:\(upstream.port)/test-jwks",
            "SESSION_SECRET": sessionSecret, "SESSION_SECURE": "false", "PUBLIC_PATHS": "/",
        ]
        // `{upstream}` in a value is the upstream peer's URL (an authorization hook it plays).
        env.merge(environment.mapValues { $0.replacingOccurrences(of: "{upstream}", with: "http://127.0.0.1:\(upstream.port)") }) { $1 }
        let gateway = try await GatewayProcess.start(environment: env)
        return ProxyFixture(upstream: upstream, gateway: gateway)
    }

    var port: Int { gateway.port }
    var webSocketPort: Int { upstream.ports[1] }

    func stop() {
        gateway.stop()
        upstream.stop()
    }

    /// The upstream's echo of a request: the headers it received, as (lower-cased name, value).
    static func echoedHeaders(_ response: RawHTTPClient.Response) throws -> [(String, String)] {
        guard let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            let headers = object["headers"] as? [[String]]
        else { return [] }
        return headers.map { ($0[0].lowercased(), $0[1]) }
    }

    static func echo(_ response: RawHTTPClient.Response) throws -> [String: Any] {
        (try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
    }
}
