import Foundation
import Glibc

/// The dev setup's stand-in for Apple: the fake APNs peer (Tests/Peers/fake_apns.py, cleartext
/// HTTP/2 on loopback) checking provider tokens with the dev APNs key's public half and recording
/// every push it receives, so `make run` shows what would be sent without an Apple account.
/// DEV ONLY.
final class DevAPNsSink {
    static let keyID = "DEVKEY0001"
    static let teamID = "DEVTEAM001"
    static let bundleID = "com.example.appnative.dev"

    let port: Int
    /// One JSON line per received push.
    let recordPath: String
    private let process: Process

    /// Starts the peer, or returns nil (with the reason) when Python or python3-h2 is missing.
    static func start(repositoryRoot root: String) -> Result<DevAPNsSink, DevSinkUnavailable> {
        let script = root + "/Tests/Peers/fake_apns.py"
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python), FileManager.default.fileExists(atPath: script) else {
            return .failure(DevSinkUnavailable(reason: "\(python) or \(script) is missing"))
        }
        let recordPath = FileManager.default.temporaryDirectory.appendingPathComponent("appnative-dev-pushes-\(getpid()).jsonl").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            script, "--signing-key", root + "/keys/dev/apns-dev.p8", "--key-id", keyID, "--team-id", teamID,
            "--bundle-id", bundleID, "--record", recordPath, "--exit-with-stdin",
        ]
        let output = Pipe()
        // The peer exits when this pipe closes, which happens however the gateway ends (even
        // SIGKILL), so it never outlives the dev setup.
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return .failure(DevSinkUnavailable(reason: "cannot start \(script): \(error)"))
        }
        // The peer prints `READY <port>` once it listens.
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("READY "), let port = Int(text.dropFirst(6).trimmingCharacters(in: .whitespaces)) else {
            kill(process.processIdentifier, SIGKILL)
            return .failure(DevSinkUnavailable(reason: "the fake APNs peer did not start (is python3-h2 installed? run make run)"))
        }
        return .success(DevAPNsSink(port: port, recordPath: recordPath, process: process, lifeline: input))
    }

    /// Held open for the peer's life (its standard input).
    private let lifeline: Pipe

    private init(port: Int, recordPath: String, process: Process, lifeline: Pipe) {
        self.port = port
        self.recordPath = recordPath
        self.process = process
        self.lifeline = lifeline
    }

    /// The APNs settings that send to this sink.
    func environment(apnsKey: String) -> [String: String] {
        [
            "APNS_KEY": apnsKey, "APNS_KEY_ID": Self.keyID, "APNS_TEAM_ID": Self.teamID, "APNS_BUNDLE_ID": Self.bundleID,
            "APNS_BASE_URL": "http://127.0.0.1:\(port)", "PUSH_API_KEYS": DevAPNsSink.pushAPIKey,
        ]
    }

    /// The dev push API key (DEV ONLY, printed in the walk-through).
    static let pushAPIKey = "dev-push-api-key-0123456789"

    func stop() {
        // SIGKILL: the child inherited the gateway's blocked SIGTERM/SIGINT (signals are read from
        // a signalfd), so a polite terminate() would never arrive.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: recordPath)
    }
}

struct DevSinkUnavailable: Error {
    let reason: String
}
