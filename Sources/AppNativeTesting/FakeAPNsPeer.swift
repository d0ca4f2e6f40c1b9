import Foundation
public import AppNativeJSON

/// `Tests/Peers/fake_apns.py` started for a test: TLS with the test certificate (`keys/test/`) or
/// cleartext h2c, verifying provider tokens with `keys/test/apns-test.p8`. Every request it
/// receives is read back with `records()`. Stopped (killed and reaped) by `stop()` or `deinit`.
public final class FakeAPNsPeer: Sendable {
    /// The test key id, team id and bundle id the fake expects.
    public static let keyID = "TESTKEY123"
    public static let teamID = "TEAM123456"
    public static let bundleID = "com.example.appnative"

    /// `https://127.0.0.1:<port>` or `http://127.0.0.1:<port>`.
    public let baseURL: String
    /// The test CA for `https` (nil for h2c).
    public let caFile: String?
    /// The APNs test key (PKCS #8 PEM) whose public half the fake verifies tokens with.
    public let keyPEM: String
    private let recordFile: String
    private let peer: LoopbackPeer

    /// Starts the fake.
    ///
    /// - Parameters:
    ///   - tls: TLS with the test certificate (else h2c with prior knowledge).
    ///   - maxConcurrentStreams: the SETTINGS_MAX_CONCURRENT_STREAMS it announces.
    ///   - throttlesAfterRejection: announce 1 stream after an error answer and the maximum again
    ///     after a 200, as APNs does.
    public static func start(
        tls: Bool, maxConcurrentStreams: Int = 1000, throttlesAfterRejection: Bool = false
    ) async throws -> FakeAPNsPeer {
        let root = ProcessRunner.repositoryRoot()
        let record = NSTemporaryDirectory() + "fake-apns-\(UUID().uuidString).jsonl"
        _ = FileManager.default.createFile(atPath: record, contents: nil)
        var arguments = [
            root + "/Tests/Peers/fake_apns.py", "--signing-key", root + "/keys/test/apns-test.p8",
            "--key-id", keyID, "--team-id", teamID, "--bundle-id", bundleID, "--record", record,
            "--max-concurrent-streams", String(maxConcurrentStreams),
        ]
        if throttlesAfterRejection { arguments.append("--throttle-after-rejection") }
        if tls {
            arguments += ["--cert", root + "/keys/test/localhost.pem", "--key", root + "/keys/test/localhost-key.pem"]
        }
        let peer = try await LoopbackPeer.start(ProcessRunner.python, arguments)
        let key = try String(contentsOfFile: root + "/keys/test/apns-test.p8", encoding: .utf8)
        return FakeAPNsPeer(
            peer: peer, baseURL: "\(tls ? "https" : "http")://127.0.0.1:\(peer.port)",
            caFile: tls ? root + "/keys/test/ca.pem" : nil, keyPEM: key, recordFile: record)
    }

    private init(peer: LoopbackPeer, baseURL: String, caFile: String?, keyPEM: String, recordFile: String) {
        self.peer = peer
        self.baseURL = baseURL
        self.caFile = caFile
        self.keyPEM = keyPEM
        self.recordFile = recordFile
    }

    /// Every request recorded so far, in arrival order: `connection`, `stream`, `method`, `path`,
    /// `token`, `headers` (lower-case names), `payload`, `payload_bytes`, `jwt_header`,
    /// `jwt_claims`, `jwt_valid`, `status`, `reason`, `action`, `stream_limit` (announced when it
    /// arrived).
    public func records() throws -> [JSONObject] {
        let text = try String(contentsOfFile: recordFile, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            guard let object = try JSONParser().parse(String(line)).objectValue else {
                throw LoopbackPeer.StartFailure(description: "fake_apns record is not an object")
            }
            return object
        }
    }

    /// Kills the fake and removes its record file.
    public func stop() {
        peer.stop()
        try? FileManager.default.removeItem(atPath: recordFile)
    }

    deinit { stop() }
}
