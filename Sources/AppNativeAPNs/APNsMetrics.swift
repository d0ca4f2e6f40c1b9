import AppNativeCore

/// The sender's metrics (descriptors in `MetricCatalogue`). Counters per kind and outcome are created once, so
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
                pushes[kind.rawValue + "/" + outcome] = registry.counter(MetricCatalogue.apnsPushes, labels: ["kind": kind.rawValue, "outcome": outcome])
            }
        }
        self.pushes = pushes
        latency = registry.histogram(MetricCatalogue.apnsRequestDuration)
        openStreams = registry.gauge(MetricCatalogue.apnsStreamsOpen)
        tokenAge = registry.gauge(MetricCatalogue.apnsProviderTokenAge)
        retries = registry.counter(MetricCatalogue.apnsRetries)
    }

    func record(_ result: APNsResult, kind: APNsNotificationKind) {
        pushes[kind.rawValue + "/" + result.outcome]?.increment()
        if let reason = result.reason {
            registry.counter(MetricCatalogue.apnsReasons, labels: ["reason": reason.metricLabel])
                .increment()
        }
        if let error = result.transportError {
            registry.counter(MetricCatalogue.apnsFailures, labels: ["error": error.code.description])
                .increment()
        }
    }
}
