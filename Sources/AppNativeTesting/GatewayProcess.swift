import Foundation
import Glibc

// Unsafe (Glibc, tests only): socket addresses are local structs passed with their sizes; argv and
// envp are NUL-terminated arrays of strdup'ed strings freed after the spawn; buffers are borrowed
// with their counts for each call.

/// The built gateway running `serve` for an integration test: bound to 127.0.0.1 port 0, started
/// on a Dispatch thread, ready once it printed its ready line (whose ports are read back).
public final class GatewayProcess: Sendable {
    public let port: Int
    public let adminPort: Int
    /// The push API's own port (`push=` in the ready line), when `PUSH_API_LISTEN` is set.
    public let pushPort: Int?
    /// Standard output up to and including the ready line (the `dev` walk-through).
    public let output: [String]
    private let child: ChildProcess
    private let stderrFile: String

    public struct StartFailure: Error, CustomStringConvertible {
        public let description: String
        /// The listener could not bind: another process holds the port (EADDRINUSE).
        public var isAddressInUse: Bool { unsafe description.contains(String(cString: strerror(EADDRINUSE))) }
    }

    /// Starts `app-native-gateway <command>` (`serve`, or `dev` for the `make run` setup);
    /// `launcher` is a command the gateway's path and arguments are appended to (one that ends by
    /// exec'ing them, so the process is the gateway's, such as a private mount namespace's set-up).
    public static func start(
        command: String = "serve", environment: [String: String], launcher: [String] = []
    ) async throws -> GatewayProcess {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try GatewayProcess(command: command, environment: environment, launcher: launcher) })
            }
        }
    }

    /// Starts `serve` on the fixed `LISTEN` of `environment` (a port a load balancer names, or
    /// the one a replica had before its restart), again while another process holds that port
    /// (a connection's local end, a listener closing): EADDRINUSE until the deadline.
    public static func start(onFixedPortOf environment: [String: String], timeout: Duration = .seconds(60)) async throws -> GatewayProcess {
        var started: GatewayProcess?
        var lastFailure: StartFailure?
        _ = try await eventually(timeout: timeout, pollingEvery: .milliseconds(100)) {
            do {
                started = try await start(environment: environment)
                return true
            } catch let failure as StartFailure where failure.isAddressInUse {
                lastFailure = failure
                return false
            }
        }
        guard let started else {
            throw lastFailure ?? StartFailure(description: "gateway did not start on \(environment["LISTEN"] ?? "?")")
        }
        return started
    }

    private init(command: String, environment: [String: String], launcher: [String] = []) throws {
        var env = ["PATH": "/usr/bin:/bin", "LISTEN": "127.0.0.1:0", "ADMIN_LISTEN": "127.0.0.1:0", "ACCESS_LOG": "false"]
        env.merge(environment) { $1 }
        stderrFile = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-\(UUID().uuidString).log").path
        child = try ChildProcess(launcher + [GatewayExecutable.path, command], environment: env, stderrFile: stderrFile)
        var output = [String]()
        while let line = child.readLine() {
            output.append(line)
            guard line.hasPrefix("app-native-gateway ready ") else { continue }
            var fields = [String: String]()
            for part in line.split(separator: " ") {
                let pair = part.split(separator: "=", maxSplits: 1)
                if pair.count == 2 { fields[String(pair[0])] = String(pair[1]) }
            }
            guard let listen = fields["listen"], let admin = fields["admin"],
                let port = listen.split(separator: ":").last.flatMap({ Int($0) }),
                let adminPort = admin.split(separator: ":").last.flatMap({ Int($0) })
            else { break }
            self.port = port
            self.adminPort = adminPort
            pushPort = fields["push"].flatMap { $0.split(separator: ":").last.flatMap { Int($0) } }
            self.output = output
            return
        }
        let log = (try? String(contentsOfFile: stderrFile, encoding: .utf8)) ?? ""
        child.kill()
        throw StartFailure(description: "gateway did not become ready: \(log.suffix(2000))")
    }

    /// SIGTERM, then waits for the exit (graceful shutdown); returns the exit status.
    public func terminate() async -> Int32 {
        child.send(signal: SIGTERM)
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.child.waitForExit()) }
        }
    }

    /// Sends a signal (SIGHUP to reload) without waiting.
    public func send(signal: Int32) { child.send(signal: signal) }

    /// The gateway's process id (for /proc measurements).
    public var pid: Int32 { child.pid }

    /// The next line the gateway writes to standard output after its ready line (access-log
    /// lines when `ACCESS_LOG=true`); blocks until one arrives, `nil` once the output closed.
    public func nextOutputLine() -> String? { child.readLine() }

    /// Waits until the start-up work the gateway finishes after its ready line is done, so that
    /// what a test counts next (descriptors, threads) is its steady state: the main thread's
    /// signalfd is open, and the first JWKS reload has ended either way (it starts the HTTP
    /// client's worker, with descriptors of its own). Needs an Entra configuration.
    public func settled() async -> Bool {
        let descriptors = "/proc/\(pid)/fd"
        return await eventually {
            let targets = ((try? FileManager.default.contentsOfDirectory(atPath: descriptors)) ?? []).compactMap {
                try? FileManager.default.destinationOfSymbolicLink(atPath: descriptors + "/" + $0)
            }
            let log = logs
            return targets.contains("anon_inode:[signalfd]") && Self.firstKeyLoadEnded.contains { log.contains($0) }
        }
    }

    /// The log messages of a JWKS load that ended, with keys or without.
    static let firstKeyLoadEnded = ["JWKS reloaded", "JWKS reload failed", "JWKS load failed"]

    /// The gateway's standard error so far (its logs).
    public var logs: String { (try? String(contentsOfFile: stderrFile, encoding: .utf8)) ?? "" }

    public func stop() { child.kill() }

    deinit {
        child.kill()
        try? FileManager.default.removeItem(atPath: stderrFile)
    }
}
