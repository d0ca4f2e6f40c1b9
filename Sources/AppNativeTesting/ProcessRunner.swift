import Foundation

/// Runs peer programs and the built executable from tests, on `ChildProcess`.
public enum ProcessRunner: Sendable {
    /// Debian's interpreter: the Debian packages the install script adds (python3-jwt, python3-h2)
    /// live in its dist-packages, which a pyenv or venv `python3` earlier on PATH would not see.
    public static let python = "/usr/bin/python3"

    public struct Output: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    /// Runs `executable` to completion with `input` on standard input.
    ///
    /// Runs on a Dispatch thread: blocking reads must not hold a cooperative-pool thread.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        input: String = "",
        environment: [String: String]? = nil
    ) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try runBlocking(executable, arguments, input: input, environment: environment) })
            }
        }
    }

    private static func runBlocking(
        _ executable: String,
        _ arguments: [String],
        input: String,
        environment: [String: String]?
    ) throws -> Output {
        let stderrFile = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: stderrFile) }
        let child = try ChildProcess([executable] + arguments, environment: environment, stderrFile: stderrFile)
        child.write(input)
        child.closeInput()
        let stdout = child.readToEnd()
        let status = child.waitForExit()
        let stderr = (try? String(contentsOfFile: stderrFile, encoding: .utf8)) ?? ""
        return Output(status: status, stdout: stdout, stderr: stderr)
    }

    /// The repository root, found from a source file's `#filePath` (tests run from the checkout).
    public static func repositoryRoot(from filePath: String = #filePath) -> String {
        var url = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url.path }
            url.deleteLastPathComponent()
        }
        preconditionFailure("no Package.swift above \(filePath)")
    }
}
