import AppNativeJSON
import AppNativeTesting
import Foundation
import Testing

private let releaseGatewayBinary = ProcessRunner.repositoryRoot() + "/.build/release/app-native-gateway"

/// The optimised build of the sender, which the debug-built tests never run: `push alert` with
/// two tokens through `.build/release/app-native-gateway` (only when a release build exists,
/// e.g. after `make build-release` or `Benchmarks/apns.sh`).
///
/// Found by Benchmarks/apns.sh: in a release build, `APNsSender.send(_:to:configuration:)` (the
/// batch send) traps — "precondition failure" at APNsSender.swift's "every batch slot is
/// filled", or an Array subscript trap at `results[index] = result` inside the task group — so
/// the CLI with two tokens dies with SIGILL (exit 132) and the gateway crashes on its first
/// push API request. The debug build of the same source passes.
@Suite(
    "APNs sender, release build",
    .enabled(if: FileManager.default.isExecutableFile(atPath: releaseGatewayBinary), "no release build"),
    .timeLimit(.minutes(1)))
struct APNsReleaseBuildTests {
    static let binary = releaseGatewayBinary

    @Test("push alert to two tokens: exit 0 and one result per token")
    func batchOfTwo() async throws {
        let fake = try await FakeAPNsPeer.start(tls: false)
        defer { fake.stop() }
        let tokens = [String(repeating: "ab", count: 32), String(repeating: "cd", count: 32)]
        let output = try await ProcessRunner.run(
            Self.binary,
            ["push", "alert", "--token", tokens[0], "--token", tokens[1], "--title", "T", "--body", "B"],
            environment: [
                "PATH": "/usr/bin:/bin", "APNS_KEY": fake.keyPEM, "APNS_KEY_ID": FakeAPNsPeer.keyID,
                "APNS_TEAM_ID": FakeAPNsPeer.teamID, "APNS_BUNDLE_ID": FakeAPNsPeer.bundleID, "APNS_BASE_URL": fake.baseURL,
            ])
        #expect(output.status == 0, "exit \(output.status): \(output.stderr.prefix(600))")
        let lines = output.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.contains(#""sent":true"#) }, "\(output.stdout)")
    }
}
