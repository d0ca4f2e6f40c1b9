import AppNativeJSON
import AppNativeTesting
import Foundation
import Testing

/// The optimised build of the sender, which the debug-built tests never run: `push alert` with
/// two tokens through the release binary. `make test` runs the integration tests a second time
/// with `APPNATIVE_GATEWAY_UNDER_TEST` naming the release build; this suite runs in that pass.
///
/// Found by Benchmarks/apns.sh: in a release build, `APNsSender.send(_:to:configuration:)` (the
/// batch send) trapped while the debug build of the same source passed.
@Suite(
    "APNs sender, release build",
    .enabled(if: GatewayExecutable.isReleaseBuild, "runs when the binary under test is the release build"),
    .timeLimit(.minutes(1)))
struct APNsReleaseBuildTests {
    static let binary = GatewayExecutable.path

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
