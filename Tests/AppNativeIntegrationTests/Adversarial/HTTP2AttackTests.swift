import AppNativeTesting
import Foundation
import Testing

/// HTTP/2 frame sequences no well-behaved client sends, played by Tests/Peers/h2_attacks.py
/// against the gateway binary in front of the recording upstream: floods end the connection,
/// frames on the wrong stream are connection errors (GOAWAY with the code), malformed requests are
/// stream errors (RST_STREAM), as RFC 9113 §5.4 says; none of them reaches the upstream, and the
/// gateway serves the next client. The other attacks (rapid reset, CONTINUATION flood, HPACK
/// bomb, oversized header lists) are in `HTTP2Tests.attacks`.
@Suite("Adversarial: HTTP/2 frames", .serialized)
struct HTTP2AttackTests {
    static let protocolError = 0x1
    static let streamClosed = 0x5
    static let enhanceYourCalm = 0xb

    /// What the attacking client saw (the script's JSON line).
    struct Report: Decodable, CustomStringConvertible {
        let goaway: Int?
        let resets: [String: Int]
        let statuses: [String: Int]
        /// How the server ended the connection ("eof", "reset"), nil while it stayed open.
        let closed: String?
        let sent: Int

        var description: String { "goaway \(goaway.map(String.init) ?? "none"), resets \(resets), statuses \(statuses), closed \(closed ?? "no"), sent \(sent)" }
    }

    static func play(_ scenario: String, port: Int, _ extra: [String] = []) async throws -> Report {
        let output = try await ProcessRunner.run(
            ProcessRunner.python, [ProcessRunner.repositoryRoot() + "/Tests/Peers/h2_attacks.py", scenario, String(port)] + extra)
        let line = output.stdout.split(separator: "\n").last.map(String.init) ?? ""
        do {
            return try JSONDecoder().decode(Report.self, from: Data(line.utf8))
        } catch {
            throw FixtureFailure(description: "no report from \(scenario): \(output.stdout) \(output.stderr)")
        }
    }

    /// A well-behaved HTTP/2 request on a new connection is still answered.
    static func stillServes(_ fixture: RecordingUpstreamFixture, _ label: String) async throws {
        let after = try await ProcessRunner.run(
            "/usr/bin/curl", ["-sS", "--max-time", "20", "--http2-prior-knowledge", "-o", "/dev/null", "-w", "%{http_code} %{http_version}",
                              "http://127.0.0.1:\(fixture.port)/after/\(label)"])
        #expect(after.stdout == "200 2", "after \(label): \(after.stdout) \(after.stderr)")
    }

    static func targets(_ fixture: RecordingUpstreamFixture) async throws -> [String] {
        try await blocking { try fixture.log() }.requests.map(\.target)
    }

    @Test(
        "floods of SETTINGS, PING and empty DATA, HEADERS and CONTINUATION frames end the connection (ENHANCE_YOUR_CALM where the client still reads)",
        arguments: ["settings-flood", "ping-flood", "empty-data-flood", "empty-headers-flood", "empty-continuation-flood"])
    func floods(_ scenario: String) async throws {
        let fixture = try await RecordingUpstreamFixture.start()
        defer { fixture.stop() }
        let report = try await Self.play(scenario, port: fixture.port)
        #expect(report.closed != nil, "\(scenario): \(report)")
        // A client that never reads may not see the GOAWAY; when it comes, it says why.
        #expect(report.goaway == nil || report.goaway == Self.enhanceYourCalm, "\(scenario): \(report)")
        if scenario.hasPrefix("empty-") {
            #expect(report.goaway == Self.enhanceYourCalm, "\(scenario): \(report)")
        }
        #expect(report.statuses.isEmpty, "\(scenario): \(report)")
        try await Self.stillServes(fixture, scenario)
        let targets = try await Self.targets(fixture)
        #expect(!targets.contains { $0.hasPrefix("/flood/") }, "\(targets)")
    }

    @Test("HTTP2_MAX_EMPTY_FRAMES is the budget of empty frames: within it the request is served, one more ends the connection with ENHANCE_YOUR_CALM")
    func emptyFrameBudgetIsASetting() async throws {
        let fixture = try await RecordingUpstreamFixture.start(["HTTP2_MAX_EMPTY_FRAMES": "20"])
        defer { fixture.stop() }
        let within = try await Self.play("empty-data:20", port: fixture.port)
        #expect(within.statuses["1"] == 200 && within.goaway == nil, "\(within)")
        let beyond = try await Self.play("empty-data:21", port: fixture.port)
        #expect(beyond.goaway == Self.enhanceYourCalm, "\(beyond)")
        #expect(beyond.statuses.isEmpty, "\(beyond)")
        try await Self.stillServes(fixture, "empty-frame-budget")
        let targets = try await Self.targets(fixture)
        #expect(targets.contains("/empty-data/20") && !targets.contains("/empty-data/21"), "\(targets)")
    }

    @Test("frames on the wrong stream and stream ids going backwards are connection errors: GOAWAY with the code, and the connection ends")
    func wrongStream() async throws {
        let fixture = try await RecordingUpstreamFixture.start()
        defer { fixture.stop() }
        // RFC 9113 §6.1 (DATA on stream 0), §5.1 (idle streams; closed streams; §5.1.1 ids).
        let cases: [(scenario: String, code: Int)] = [
            ("data-on-stream-0", Self.protocolError),
            ("window-update-idle", Self.protocolError),
            ("data-idle", Self.protocolError),
            ("headers-closed", Self.streamClosed),
            ("stream-id-backwards", Self.protocolError),
            ("stream-id-backwards-burst", Self.protocolError),
        ]
        for (scenario, code) in cases {
            let report = try await Self.play(scenario, port: fixture.port)
            #expect(report.goaway == code, "\(scenario): \(report)")
            #expect(report.closed != nil, "\(scenario): \(report)")
            try await Self.stillServes(fixture, scenario)
        }
        let targets = try await Self.targets(fixture)
        // The requests made before the error were answered; the frames after it were not.
        #expect(targets.contains("/wrong-stream/first") && targets.contains("/backwards/7"), "\(targets)")
        #expect(!targets.contains("/wrong-stream/again") && !targets.contains("/backwards/5"), "\(targets)")
        // A stream above the GOAWAY's last stream id, read before the GOAWAY went out, is not served.
        #expect(!targets.contains("/burst/5") && !targets.contains("/burst/9"), "\(targets)")
    }

    /// RFC 9113 §8.1.1 and §8.3: each case of `MALFORMED` in h2_attacks.py.
    static let malformed = [
        "uppercase-name", "connection", "transfer-encoding", "keep-alive", "proxy-connection", "upgrade", "te-gzip",
        "missing-method", "missing-path", "missing-scheme", "empty-path", "duplicate-path", "duplicate-method",
        "unknown-pseudo", "response-pseudo", "misplaced-pseudo", "content-length-more", "content-length-less",
        "content-length-split",
    ]

    @Test("malformed requests (uppercase names, connection-specific fields, te other than trailers, bad pseudo-headers, content-length not matching the DATA) are reset with PROTOCOL_ERROR and never reach the upstream; the connection goes on")
    func malformedRequests() async throws {
        let fixture = try await RecordingUpstreamFixture.start()
        defer { fixture.stop() }
        for name in Self.malformed {
            let report = try await Self.play("malformed:" + name, port: fixture.port, [String(fixture.controlPort)])
            #expect(report.resets["1"] == Self.protocolError, "\(name): \(report)")
            #expect(report.statuses["1"] == nil, "\(name): \(report)")
            #expect(report.goaway == nil, "\(name): \(report)")
            #expect(report.statuses["3"] == 200, "\(name): \(report)")
        }
        try await Self.stillServes(fixture, "malformed")
        let targets = try await Self.targets(fixture)
        #expect(!targets.contains { $0.contains("/malformed/") }, "\(targets)")
        #expect(Set(targets.filter { $0.hasPrefix("/valid/") }) == Set(Self.malformed.map { "/valid/" + $0 }), "\(targets)")
    }
}
