import Foundation

/// The `app-native-gateway` executable the integration tests run.
///
/// `APPNATIVE_GATEWAY_UNDER_TEST` names it when set (`make test` runs the integration tests a
/// second time against the release build, the binary users run); otherwise it is the build next
/// to the running test bundle (the integration test target depends on the executable product,
/// so SwiftPM builds it into the same folder).
public enum GatewayExecutable: Sendable {
    public static let environmentVariable = "APPNATIVE_GATEWAY_UNDER_TEST"

    public static var path: String {
        if let chosen = ProcessInfo.processInfo.environment[environmentVariable], !chosen.isEmpty {
            return chosen.hasPrefix("/") ? chosen : ProcessRunner.repositoryRoot() + "/" + chosen
        }
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let candidate = directory.appendingPathComponent("app-native-gateway").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        return ProcessRunner.repositoryRoot() + "/.build/debug/app-native-gateway"
    }

    /// Whether the binary under test is an optimised build (its folder is SwiftPM's `release`).
    public static var isReleaseBuild: Bool {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path.contains("/release/")
    }
}
