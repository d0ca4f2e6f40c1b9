import AppNativeCore
import AppNativeTesting
import Foundation
import Testing

/// Client and pool deadlines on the loops' timers, through the real gateway: each one fires
/// without any request or traffic to wake the loop.
@Suite("Timeouts", .timeLimit(.minutes(3)))
struct TimeoutTests {
    @Test("an idle keep-alive client connection is closed after KEEPALIVE_TIMEOUT")
    func keepAliveTimeout() async throws {
        let fixture = try await ProxyFixture.start(["KEEPALIVE_TIMEOUT": "0.5"])
        defer { fixture.stop() }
        let port = fixture.port
        let closed = try await blocking { () -> Bool in
            let client = try RawHTTPClient(port: port)
            try client.send("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
            guard try client.readResponse().status == 200 else { return false }
            // The client's receive timeout is far longer than the keep-alive timeout.
            return client.readsEndOfStream()
        }
        #expect(closed)
    }

    @Test("a body that stops arriving gets 408 after BODY_IDLE_TIMEOUT")
    func bodyIdleTimeout() async throws {
        let fixture = try await ProxyFixture.start(["BODY_IDLE_TIMEOUT": "0.5"])
        defer { fixture.stop() }
        let port = fixture.port
        let response = try await blocking { () -> RawHTTPClient.Response in
            let client = try RawHTTPClient(port: port)
            try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
            return try client.readResponse(to: "POST")
        }
        #expect(response.status == 408)
    }

    @Test("a pooled upstream connection is closed after UPSTREAM_IDLE_TIMEOUT, and kept under a longer one")
    func poolIdleExpiry() async throws {
        let short = try await ProxyFixture.start(["UPSTREAM_IDLE_TIMEOUT": "0.5", "EVENT_LOOPS": "1"])
        defer { short.stop() }
        let long = try await ProxyFixture.start(["UPSTREAM_IDLE_TIMEOUT": "3600", "EVENT_LOOPS": "1"])
        defer { long.stop() }
        for fixture in [long, short] {
            let port = fixture.port
            let response = try await blocking { try RawHTTPClient.get(port: port, "/echo") }
            #expect(response.status == 200)
        }
        let longAdmin = long.gateway.adminPort, shortAdmin = short.gateway.adminPort
        #expect(try await Self.openUpstreamConnections(longAdmin) == 1)
        let expired = try await eventually(timeout: .seconds(60), pollingEvery: .milliseconds(100)) {
            try await Self.openUpstreamConnections(shortAdmin) == 0
        }
        #expect(expired, "the short idle timeout never closed the pooled connection")
        // The same upstream peer kept the other gateway's connection open all along.
        #expect(try await Self.openUpstreamConnections(longAdmin) == 1)
    }

    /// `upstream.pool.open`, summed over the loops, from the admin listener's metrics.
    private static func openUpstreamConnections(_ adminPort: Int) async throws -> Int {
        let text = try await blocking { try RawHTTPClient.get(port: adminPort, "/metrics").bodyText }
        return text.split(separator: "\n")
            .filter { $0.hasPrefix("appnative_upstream_pool_open") }
            .compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }
            .reduce(0, +)
    }
}
