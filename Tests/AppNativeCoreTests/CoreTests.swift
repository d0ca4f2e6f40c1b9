import AppNativeCore
import AppNativeTesting
import Foundation
import Testing

@Suite("Core facades")
struct CoreTests {
    @Test("Secret never prints its value")
    func secretRedaction() {
        let secret = Secret("hunter2-token")
        #expect("\(secret)" == "[redacted]")
        #expect(String(describing: secret) == "[redacted]")
        #expect(String(reflecting: secret) == "[redacted]")
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains("hunter2"))
        #expect(secret.revealed == "hunter2-token")
    }

    @Test("log lines are one JSON object with escaped values and sorted metadata")
    func logLine() throws {
        let record = LogRecord(level: .warning, message: "quote \" backslash \\ newline \n tab \t bell \u{7}",
                               metadata: ["b.key": "2", "a.key": "Zoë"], wallSeconds: 1.5)
        let line = LogLine.json(for: record)
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["msg"] as? String == "quote \" backslash \\ newline \n tab \t bell \u{7}")
        #expect(object["a.key"] as? String == "Zoë")
        #expect(object["level"] as? String == "warning")
        #expect(object["ts"] as? Double == 1.5)
        #expect(line.range(of: "a.key")!.lowerBound < line.range(of: "b.key")!.lowerBound)
    }

    @Test("the logger filters by level and merges metadata")
    func logger() {
        let sink = InMemoryLogSink()
        let logger = Logger(sink: sink, minimumLevel: .info, metadata: ["component": "x"]).with(["request.id": "r1"])
        logger.debug("hidden")
        logger.info("shown", ["extra": "1"])
        #expect(sink.all.count == 1)
        #expect(sink.all[0].metadata == ["component": "x", "request.id": "r1", "extra": "1"])
    }

    @Test("Prometheus exposition: counters, gauges, histograms with cumulative buckets")
    func prometheus() {
        let registry = MetricsRegistry()
        let outcomes = MetricDescriptor.counter("appnative_auth_outcomes_total", help: "Outcomes", labels: [.init("reason")])
        registry.counter(outcomes, labels: ["reason": "expired"]).increment(by: 3)
        registry.gauge(.gauge("appnative_jwks_keys", help: "Keys")).set(2)
        let histogram = registry.histogram(.histogram("appnative_upstream_duration_seconds", upperBounds: [0.01, 0.1, 1], help: "Time"))
        for value in [0.005, 0.05, 0.5, 5] { histogram.observe(value) }
        let text = registry.renderPrometheus()
        #expect(text.contains("# HELP appnative_auth_outcomes_total Outcomes"))
        #expect(text.contains("# TYPE appnative_auth_outcomes_total counter"))
        #expect(text.contains("appnative_auth_outcomes_total{reason=\"expired\"} 3"))
        #expect(text.contains("appnative_jwks_keys 2"))
        #expect(text.contains("appnative_upstream_duration_seconds_bucket{le=\"0.01\"} 1"))
        #expect(text.contains("appnative_upstream_duration_seconds_bucket{le=\"0.1\"} 2"))
        #expect(text.contains("appnative_upstream_duration_seconds_bucket{le=\"1.0\"} 3"))
        #expect(text.contains("appnative_upstream_duration_seconds_bucket{le=\"+Inf\"} 4"))
        #expect(text.contains("appnative_upstream_duration_seconds_count 4"))
        // Registering the same name and labels again returns the same counter.
        registry.counter(outcomes, labels: ["reason": "expired"]).increment()
        #expect(registry.renderPrometheus().contains("appnative_auth_outcomes_total{reason=\"expired\"} 4"))
    }

    @Test("Locked serialises concurrent updates")
    func locked() async {
        let counter = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<1000 { counter.withLock { $0 += 1 } } }
            }
        }
        #expect(counter.withLock { $0 } == 8000)
    }

    @Test("withDeadline returns the result, or fails on time even if the work ignores cancellation")
    func deadline() async throws {
        let time = ManualTimeSource(wallSeconds: 0)
        let value = try await withDeadline(.seconds(1), time: time) { 42 }
        #expect(value == 42)
        let hung = Task {
            try await withDeadline(.seconds(1), time: time) { () async throws -> Int in
                await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
                return 0
            }
        }
        #expect(await eventually { time.sleeperCount == 1 })
        time.advance(by: .seconds(1))
        await #expect(throws: DeadlineExceeded.self) { try await hung.value }
    }

    @Test("the system time source is monotonic and close to Foundation's wall clock")
    func systemTime() {
        let time = SystemTimeSource()
        let first = time.monotonic
        let second = time.monotonic
        #expect(second >= first)
        // Bracketed by two readings of Foundation's clock, so however long the thread is kept
        // off the CPU between them; the slack covers the two clocks' rounding.
        let before = Date().timeIntervalSince1970
        let wall = time.wallSeconds
        let after = Date().timeIntervalSince1970
        #expect(before - 1 <= wall && wall <= after + 1, "\(before) \(wall) \(after)")
    }
}
