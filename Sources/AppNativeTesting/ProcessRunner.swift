public import Foundation

/// Runs peer programs and the built executable from tests.
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
    public static func run(
        _ executable: String,
        _ arguments: [String],
        input: String = "",
        environment: [String: String]? = nil
    ) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        // Read both pipes before waiting so a chatty child cannot block on a full pipe.
        let outData = stdout.fileHandleForReading.readDataToEndOfFile()
        let errData = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self)
        )
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
