import AppNativeCore
import AppNativeDevPeers
import Foundation

/// The whole command-line interface; the executable only calls `run` and exits with its code.
public enum CommandLineTool: Sendable {
    static let usage = """
        usage: app-native-gateway COMMAND

        commands:
          version                                   print the version
          dev                                       print a dev token and the dev setup (make run)
        \(TokenCommand.usage.indented)
        \(CookieCommand.usage.indented)

        exit codes: 0 ok/valid, 1 credential invalid, 2 usage or configuration error, 3 keys unavailable
        """

    /// Runs the command in `arguments` (without the program name) and returns the exit code.
    public static func run(arguments: [String], environment: [String: String]) async -> Int32 {
        do {
            let parsed = try ArgumentList(arguments, switchNames: ["dev", "help"])
            let code: ExitCode
            switch parsed.positional.first {
            case "version":
                print("app-native-gateway \(GatewayVersion.current)")
                code = .success
            case "token":
                code = try await TokenCommand.run(parsed, environment: environment)
            case "cookie":
                code = try CookieCommand.run(parsed, environment: environment)
            case "dev":
                code = try DevCommand.run(environment: environment)
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
