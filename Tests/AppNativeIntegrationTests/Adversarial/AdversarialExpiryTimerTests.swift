import AppNativeDevPeers
import AppNativeTesting
import Foundation
import Testing

/// Every event stream and WebSocket admitted with a credential arms a deadline for its expiry;
/// the deadline must go with its exchange. A short stream admitted with a token valid for hours
/// must leave nothing behind, or memory grows with every stream until the tokens expire.
@Suite("Adversarial: credential-expiry deadlines", .serialized)
struct AdversarialExpiryTimerTests {
    static let streams = 20_000
    static let connections = 4

    @Test("memory stays flat over 20,000 short event streams opened and closed with one long-lived token")
    func shortStreamsLeaveNothingBehind() async throws {
        let fixture = try await ProxyFixture.start(["PUBLIC_PATHS": "/public", "ACCESS_LOG": "false"])
        defer { fixture.stop() }
        let port = fixture.port
        let token = try ProxyFixture.devProvider().token(issuedAt: Date().timeIntervalSince1970, lifetime: .seconds(23 * 3600))
        let probe = ChildProcessProbe(pid: fixture.gateway.pid)
        /// Opens `count` event streams on each of `connections` keep-alive connections, each read to its end.
        func run(_ count: Int) async throws {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<Self.connections {
                    group.addTask {
                        try await blocking {
                            let client = try RawHTTPClient(port: port)
                            let request = Array(
                                ("GET /sse-short HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n"
                                    + "Authorization: Bearer \(token)\r\n\r\n").utf8)
                            for _ in 0..<(count / Self.connections) {
                                try client.send(request)
                                let answer = try client.readResponse()
                                guard answer.status == 200 else { throw FixtureFailure(description: "stream answered \(answer.status)") }
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        // Warm up: pools, caches and allocator arenas reach their working size.
        try await run(Self.streams / 10)
        let baselineKiB = probe.residentKiB
        try await run(Self.streams)
        let afterKiB = probe.residentKiB
        print("\(Self.streams) short event streams: gateway VmRSS \(baselineKiB) KiB after warm-up, \(afterKiB) KiB after")
        #expect(baselineKiB > 0 && afterKiB > 0, "the gateway's /proc/<pid>/status was readable")
        // A deadline left behind per stream holds its timer, closure, exchange handle and
        // identity: over 20,000 streams that is megabytes. Flat means within allocator noise.
        #expect(afterKiB - baselineKiB < 2048, "VmRSS grew by \(afterKiB - baselineKiB) KiB over \(Self.streams) streams")
    }
}
