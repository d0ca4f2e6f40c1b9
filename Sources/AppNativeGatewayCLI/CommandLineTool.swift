import AppNativeCore
import AppNativeDevPeers
import AppNativeGateway
import Foundation

/// The whole command-line interface; the executable only calls `run` and exits with its code.
public enum CommandLineTool: Sendable {
    static let usage = """
        usage: app-native-gateway COMMAND

        commands:
          version                                   print the version
          serve                                     run the gateway (configuration from the environment)
          dev                                       print a dev token and the dev setup (make run)
        \(TokenCommand.usage.indented)
        \(CookieCommand.usage.indented)
        \(ConfigCommand.usage.indented)
        \(PushCommand.usage.indented)

        options: --config FILE   read KEY=value settings from FILE (the environment wins)

        exit codes: 0 ok/valid/sent, 1 credential invalid, 2 usage or configuration error, 3 keys unavailable,
                    4 push not sent
        """

    /// The process entry point: runs the command line and exits with its code.
    ///
    /// Long-running commands need SIGTERM/SIGINT/SIGHUP blocked in every thread so the main
    /// thread can read them from a signalfd; that mask is set here, synchronously, before the
    /// concurrency runtime starts any thread (threads inherit the mask of their creator).
    public static func main() -> Never {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if ["serve", "dev"].contains(arguments.first ?? "") { ProcessSignals.blockHandledSignals() }
        let environment = ProcessInfo.processInfo.environment
        let result = Locked<Int32>(ExitCode.usage.rawValue)
        let done = DispatchSemaphore(value: 0)
        Task {
            let code = await run(arguments: arguments, environment: environment)
            result.withLock { $0 = code }
            done.signal()
        }
        done.wait()
        exit(result.withLock { $0 })
    }

    /// Runs the command in `arguments` (without the program name) and returns the exit code.
    public static func run(arguments: [String], environment: [String: String]) async -> Int32 {
        do {
            let parsed = try ArgumentList(arguments, switchNames: ["dev", "help"])
            var environment = environment
            if let file = parsed.value("config") {
                environment = try ConfigFile.load(file).merging(environment) { _, fromEnvironment in fromEnvironment }
            }
            let code: ExitCode
            switch parsed.positional.first {
            case "version":
                print("app-native-gateway \(GatewayVersion.current)")
                code = .success
            case "token":
                code = try await TokenCommand.run(parsed, environment: environment)
            case "config":
                code = try ConfigCommand.run(parsed, environment: environment)
            case "push":
                code = try await PushCommand.run(parsed, environment: environment)
            case "cookie":
                code = try CookieCommand.run(parsed, environment: environment)
            case "serve":
                code = try await ServeCommand.run(environment: environment)
            case "dev":
                code = try await DevCommand.run(environment: environment)
            case nil where parsed.has("help"), "help":
                print(usage)
                code = .success
            default:
                CommandOutput.printError("unknown command\n" + usage)
                code = .usage
            }
            return code.rawValue
        } catch let error as ArgumentList.UsageError {
            CommandOutput.printError(error.description)
            return ExitCode.usage.rawValue
        } catch {
            CommandOutput.printError("\(error)")
            return ExitCode.usage.rawValue
        }
    }
}

extension String {
    fileprivate var indented: String {
        split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")
    }
}
