import AppNativeCore

/// The sender's metrics (docs/style.md §3 keys). Counters per kind and outcome are created once, so
/// the hot path takes no registry lock; reasons are looked up only on refusals.
struct APNsMetrics: Sendable {
    private let registry: MetricsRegistry
    private let pushes: [String: Counter]
    let latency: Histogram
    let openStreams: Gauge
    let tokenAge: Gauge
    let retries: Counter

    init(registry: MetricsRegistry) {
        self.registry = registry
        var pushes: [String: Counter] = [:]
        for kind in APNsNotificationKind.allCases {
            for outcome in ["sent", "rejected", "failed"] {
                pushes[kind.rawValue + "/" + outcome] = registry.counter(
                    "apns.pushes", labels: ["kind": kind.rawValue, "outcome": outcome],
                    help: "APNs pushes by kind and outcome")
            }
        }
        self.pushes = pushes
        latency = registry.histogram(
            "apns.request.duration_seconds", upperBounds: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
            help: "APNs request latency per attempt")
        openStreams = registry.gauge("apns.streams.open", help: "APNs requests in flight")
        tokenAge = registry.gauge("apns.provider_token.age_seconds", help: "Age of the provider token last used")
        retries = registry.counter("apns.retries", help: "APNs attempts retried")
    }

    func record(_ result: APNsResult, kind: APNsNotificationKind) {
        pushes[kind.rawValue + "/" + result.outcome]?.increment()
        if let reason = result.reason {
            registry.counter("apns.reasons", labels: ["reason": reason.metricLabel], help: "APNs refusal reasons")
                .increment()
        }
        if let error = result.transportError {
            registry.counter("apns.failures", labels: ["error": error.code.description], help: "APNs pushes without an answer")
                .increment()
        }
    }
}
