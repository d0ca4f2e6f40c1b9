public import Foundation

/// A peer server started by a test: it prints `READY <port>` on standard output once it listens on
/// 127.0.0.1. The process is killed and reaped by `stop()` (and by `deinit` as a safety net).
public final class LoopbackPeer: @unchecked Sendable {
    // Mutable state (`process`) is only touched by init and stop, which tests call from one task.
    public let port: Int
    private let process: Process
    private let stderrPipe: Pipe

    public struct StartFailure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts `executable` and waits (bounded) for its `READY <port>` line.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        stderrPipe = stderr
        var buffer = Data()
        var found: Int?
        let handle = stdout.fileHandleForReading
        while found == nil {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            let text = String(decoding: buffer, as: UTF8.self)
            for line in text.split(separator: "\n") where line.hasPrefix("READY ") {
                found = Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces))
            }
        }
        guard let found else {
            process.terminate()
            process.waitUntilExit()
            let message = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw StartFailure(description: "peer \(executable) exited before READY: \(message.suffix(2000))")
        }
        port = found
    }

    /// Stops the peer with SIGTERM, then SIGKILL, and reaps it.
    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }
}
