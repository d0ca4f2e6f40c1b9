@testable import AppNativeGatewayCLI
import Foundation
import Testing

/// The command line in-process: argument parsing, the `--config` file and exit codes. The
/// commands against a running gateway are tested through the binary (AppNativeIntegrationTests,
/// "Operator CLI").
@Suite struct CommandLineToolTests {
    @Test func optionsSwitchesAndPositionals() throws {
        let parsed = try ArgumentList(["token", "verify", "--dev", "--jwks-file", "a.json", "--role=r1", "--role", "r2"], switchNames: ["dev"])
        #expect(parsed.positional == ["token", "verify"])
        #expect(parsed.has("dev"))
        #expect(parsed.value("jwks-file") == "a.json")
        #expect(parsed.values("role") == ["r1", "r2"])
        #expect(throws: ArgumentList.UsageError.self) { try parsed.checkOnly(["dev"]) }
        try parsed.checkOnly(["dev", "jwks-file", "role"])
    }

    @Test(arguments: [["--name"], ["--dev=yes"]])
    func usageErrors(arguments: [String]) {
        #expect(throws: ArgumentList.UsageError.self) { try ArgumentList(arguments, switchNames: ["dev"]) }
    }

    @Test func configFileLinesAndErrors() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("appnative-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = directory.appendingPathComponent("good.env").path
        try "# comment\n\nLISTEN = 127.0.0.1:9\nEMPTY=\nURL=http://x/?a=b\n".write(toFile: good, atomically: true, encoding: .utf8)
        #expect(try ConfigFile.load(good) == ["LISTEN": " 127.0.0.1:9", "EMPTY": "", "URL": "http://x/?a=b"])
        let bad = directory.appendingPathComponent("bad.env").path
        try "LISTEN\n".write(toFile: bad, atomically: true, encoding: .utf8)
        #expect(throws: ConfigFile.Invalid.self) { try ConfigFile.load(bad) }
        #expect(throws: ConfigFile.Invalid.self) { try ConfigFile.load(directory.appendingPathComponent("missing").path) }
    }

    @Test func exitCodes() async {
        #expect(await CommandLineTool.run(arguments: ["version"], environment: [:]) == ExitCode.success.rawValue)
        #expect(await CommandLineTool.run(arguments: ["no-such-command"], environment: [:]) == ExitCode.usage.rawValue)
        #expect(await CommandLineTool.run(arguments: ["config", "check"], environment: [:]) == ExitCode.usage.rawValue)
        #expect(await CommandLineTool.run(arguments: ["--config", "/nonexistent/file", "version"], environment: [:]) == ExitCode.usage.rawValue)
    }
}
