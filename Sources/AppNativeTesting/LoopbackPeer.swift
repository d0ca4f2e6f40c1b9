import Foundation

/// A peer server started by a test: it prints `READY <port>` on standard output once it listens on
/// 127.0.0.1. `stop()` (and `deinit`, as a safety net) kills and reaps it.
public final class LoopbackPeer: Sendable {
    /// The first port of the READY line.
    public let port: Int
    /// Every port of the READY line (`READY <port> [<port>…]`).
    public let ports: [Int]
    private let child: ChildProcess

    public struct StartFailure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts `executable` on a Dispatch thread (blocking reads stay off the cooperative pool)
    /// and waits for its `READY <port>` line.
    public static func start(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil
    ) async throws -> LoopbackPeer {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try LoopbackPeer(executable, arguments, environment: environment) })
            }
        }
    }

    private init(_ executable: String, _ arguments: [String], environment: [String: String]?) throws {
        child = try ChildProcess([executable] + arguments, environment: environment)
        while let line = child.readLine() {
            if line.hasPrefix("READY ") {
                let ports = line.dropFirst(6).split(separator: " ").compactMap { Int($0) }
                if let first = ports.first {
                    self.port = first
                    self.ports = ports
                    return
                }
            }
        }
        child.kill()
        throw StartFailure(description: "peer \(executable) exited before printing READY")
    }

    /// Kills (SIGKILL) and reaps the peer.
    public func stop() {
        child.kill()
    }

    deinit { child.kill() }
}
