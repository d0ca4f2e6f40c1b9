import AppNativeTesting
import Foundation
import Glibc
import Testing

/// A running `Tests/Peers/http_fixture_server.py`, bound to 127.0.0.1 on a port the kernel
/// chose and read back from its `READY <port>` line. Use `withFixturePeer`, which always
/// kills and reaps it.
///
/// Its state is immutable after `start`; the child process inside is only killed by its owner.
final class FixturePeer: Sendable {
    let port: Int
    let isTLS: Bool
    private let child: ChildProcess

    struct StartFailed: Error, CustomStringConvertible {
        var description: String
    }

    static var scriptPath: String {
        TestCertificates.repositoryRoot.appendingPathComponent("Tests/Peers/http_fixture_server.py").path
    }

    /// Starts a peer without blocking the cooperative pool: spawning and waiting for the READY
    /// line happen on a Dispatch thread, since two pool threads blocked on slow interpreter
    /// start-ups would stall every other test.
    static func start(tls: Bool) async throws -> FixturePeer {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try FixturePeer(tls: tls ? TestCertificates.shared() : nil) })
            }
        }
    }

    private init(tls certificates: TestCertificates?) throws {
        var arguments = ["python3", "-u", Self.scriptPath, "--lifetime", "1800"]
        if let certificates {
            arguments += ["--tls", certificates.certificateFile, certificates.keyFile]
        }
        // The peer also exits when its stdin closes, so even a crashed test run leaves nothing behind.
        // The lifetime is only a last resort: a shared peer lives as long as its suite, which on a
        // loaded two-core machine running every suite at once can be minutes.
        child = try ChildProcess(arguments)
        isTLS = certificates != nil
        let line = child.readLine() ?? ""
        guard line.hasPrefix("READY "), let port = Int(line.dropFirst("READY ".count)) else {
            child.kill()
            throw StartFailed(description: "fixture peer did not report READY (got \"\(line)\")")
        }
        self.port = port
    }

    /// `http(s)://<host>:<port><path>`. TLS tests use `localhost`, the certificate's name.
    func url(_ path: String, host: String? = nil) -> String {
        "\(isTLS ? "https" : "http")://\(host ?? (isTLS ? "localhost" : "127.0.0.1")):\(port)\(path)"
    }

    /// Kills and reaps the peer.
    func stop() {
        child.kill()
    }
}

/// The peers a suite shares: one plain HTTP and one HTTPS, started once around the suite by
/// the `.fixturePeers` trait (a few dozen interpreters starting at once would otherwise
/// dominate the run on a two-core machine).
struct FixturePeers: Sendable {
    var plain: FixturePeer
    var tls: FixturePeer

    @TaskLocal static var current: FixturePeers?
}

/// Starts the suite's shared peers before its first test and kills and reaps them after its
/// last, whether the tests pass, fail or throw.
struct FixturePeersTrait: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        let plain = try await FixturePeer.start(tls: false)
        defer { plain.stop() }
        let tls = try await FixturePeer.start(tls: true)
        defer { tls.stop() }
        try await FixturePeers.$current.withValue(FixturePeers(plain: plain, tls: tls)) {
            try await function()
        }
    }
}

extension Trait where Self == FixturePeersTrait {
    /// Shares one plain and one TLS fixture peer across the suite's tests.
    static var fixturePeers: Self { Self() }
}

/// Runs `body` with the suite's shared peer, or with a fresh one (killed and reaped however
/// `body` ends) when the suite has no `.fixturePeers` trait.
func withFixturePeer<Result>(
    tls: Bool = false,
    _ body: (FixturePeer) async throws -> Result
) async throws -> Result {
    if let shared = FixturePeers.current {
        return try await body(tls ? shared.tls : shared.plain)
    }
    let peer = try await FixturePeer.start(tls: tls)
    defer { peer.stop() }
    return try await body(peer)
}
