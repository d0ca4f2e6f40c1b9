import AppNativeCore
import AppNativeGateway
import AppNativeProxy
import AppNativeServer
import Foundation
import Glibc

// Unsafe: write(2) is given a string's UTF-8 buffer and its count, borrowed for the call.

/// `serve`: runs the gateway until SIGTERM/SIGINT (graceful) — a second signal forces the exit.
enum ServeCommand {
    static func run(environment: [String: String]) async throws -> ExitCode {
        let configuration: GatewayConfiguration
        do {
            configuration = try GatewayConfiguration.fromEnvironment(environment)
        } catch {
            for problem in error.problems {
                CommandOutput.printError("configuration: \(problem.variable): \(problem.message)")
            }
            return .usage
        }
        // Signals were blocked by `CommandLineTool.main` before any thread started.
        let logger = Logger()
        let gateway = try Gateway(configuration: configuration, logger: logger)
        await gateway.start()
        // The one line that says the gateway serves, naming its addresses (tests wait for it).
        // Written with write(2): stdio buffering must not hold it back when stdout is a pipe.
        let push = gateway.pushAddress.map { " push=\($0)" } ?? ""
        let upstream = configuration.upstream.map { " upstream=\($0.target)" } ?? ""
        let routes = configuration.routesFile == nil ? "" : " routes=\(configuration.routeNames.count)"
        var line = "app-native-gateway ready listen=\(gateway.listenAddress) admin=\(gateway.adminAddress)\(push)\(upstream)\(routes)\n"
        line.withUTF8 { _ = unsafe Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        while true {
            let signal = ProcessSignals.wait()
            if signal == SIGHUP {
                // The TLS certificate, the access policy, the secrets read from files.
                gateway.reloadFiles()
                continue
            }
            logger.info("shutting down", ["signal": String(signal)])
            // A second signal during the drain forces the exit.
            Thread.detachNewThread {
                _ = ProcessSignals.wait()
                exit(1)
            }
            gateway.shutdown()
            logger.info("stopped")
            return .success
        }
    }
}
