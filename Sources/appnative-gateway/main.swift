import AppNativeGateway
import Foundation

// The executable holds no logic: parse nothing here, hand everything to the gateway's CLI.
let code = await CommandLineTool.run(
    arguments: Array(CommandLine.arguments.dropFirst()),
    environment: ProcessInfo.processInfo.environment
)
exit(code)
