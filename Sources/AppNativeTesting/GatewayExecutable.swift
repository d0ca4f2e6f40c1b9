import Foundation

/// The built `app-native-gateway` executable next to the running test bundle (the integration
/// test target depends on the executable product, so SwiftPM builds it into the same folder).
public enum GatewayExecutable: Sendable {
    public static var path: String {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let candidate = directory.appendingPathComponent("app-native-gateway").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        return ProcessRunner.repositoryRoot() + "/.build/debug/app-native-gateway"
    }
}
