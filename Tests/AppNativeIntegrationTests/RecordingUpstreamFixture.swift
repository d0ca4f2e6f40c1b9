import AppNativeTesting
import Foundation

/// Tests/Peers/echo_peer.py (an upstream that echoes any request and records every byte it
/// receives) with a gateway in front of it.
struct RecordingUpstreamFixture {
    let upstream: LoopbackPeer
    let gateway: GatewayProcess

    /// The upstream's HTTP port (the gateway's `UPSTREAM_URL`).
    var upstreamPort: Int { upstream.ports[0] }
    /// The upstream's control port (`/log`, `/reset`); its traffic is never recorded.
    var controlPort: Int { upstream.ports[1] }
    var port: Int { gateway.port }

    static func start(_ environment: [String: String] = [:]) async throws -> RecordingUpstreamFixture {
        let upstream = try await LoopbackPeer.start(
            ProcessRunner.python,
            [ProcessRunner.repositoryRoot() + "/Tests/Peers/echo_peer.py"]
        )
        guard upstream.ports.count == 2 else {
            upstream.stop()
            throw FixtureFailure(description: "echo_peer.py printed the ports \(upstream.ports), expected two")
        }
        // Every path public: these tests look at the proxy, not at identity.
        var env = ProxyFixture.publicEnvironment(["UPSTREAM_URL": "http://127.0.0.1:\(upstream.ports[0])", "EVENT_LOOPS": "2"])
        env.merge(environment) { $1 }
        do {
            let gateway = try await GatewayProcess.start(environment: env)
            return RecordingUpstreamFixture(upstream: upstream, gateway: gateway)
        } catch {
            upstream.stop()
            throw error
        }
    }

    func stop() {
        gateway.stop()
        upstream.stop()
    }

    /// Forgets what the upstream recorded so far (blocking; call inside `blocking {}`).
    func resetLog() throws {
        let client = try RawHTTPClient(port: controlPort)
        try client.send("POST /reset HTTP/1.1\r\nHost: control\r\nContent-Length: 0\r\n\r\n")
        _ = try client.readResponse(to: "POST")
    }

    /// What the upstream received since the last reset (blocking; call inside `blocking {}`).
    func log() throws -> UpstreamLog {
        let response = try RawHTTPClient.get(port: controlPort, "/log")
        return try JSONDecoder().decode(UpstreamLog.self, from: Data(response.body))
    }
}

struct FixtureFailure: Error, CustomStringConvertible {
    let description: String
}

/// The recording upstream's `/log`: every byte and request that reached it.
struct UpstreamLog: Decodable, Sendable {
    /// One request as the upstream parsed it; names, values and body are Latin-1 text.
    struct Request: Decodable, Sendable {
        let method: String
        let target: String
        let version: String
        let headers: [[String]]
        let trailers: [[String]]?
        /// "content-length", "chunked" or "none".
        let framing: String
        /// The first 64 KiB of the de-chunked body.
        let body: String
        let bodyLength: Int
        let bodySHA256: String

        enum CodingKeys: String, CodingKey {
            case method, target, version, headers, trailers, framing, body
            case bodyLength = "body_length"
            case bodySHA256 = "body_sha256"
        }

        /// The values of the fields named `name` (any case), in order.
        func values(_ name: String) -> [String] {
            headers.filter { $0[0].lowercased() == name.lowercased() }.map { $0[1] }
        }
    }

    /// Bytes received on the upstream port.
    let bytes: Int
    /// TCP connections accepted on the upstream port (a connection may carry no byte).
    let connections: Int
    let requests: [Request]
    /// Requests the upstream could not parse (a malformed forwarded request).
    let errors: [String]
    /// The first MiB received, Latin-1.
    let raw: String
}

/// The bytes of Latin-1 text, one per character (the vectors' encoding).
func latin1Bytes(_ text: String) -> [UInt8] {
    HTTPRequestVector.latin1Bytes(text)
}
