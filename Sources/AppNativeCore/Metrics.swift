import Synchronization

/// A monotonically increasing counter. Lock-free: incremented on hot paths.
public final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    public init() {}

    public func increment(by amount: Int = 1) {
        value.add(amount, ordering: .relaxed)
    }

    public var current: Int { value.load(ordering: .relaxed) }
}

/// A value that goes up and down (open connections, key count, cache size).
public final class Gauge: Sendable {
    private let value = Atomic<Int>(0)

    public init() {}

    public func set(_ newValue: Int) { value.store(newValue, ordering: .relaxed) }
    public func add(_ delta: Int) { value.add(delta, ordering: .relaxed) }
    public var current: Int { value.load(ordering: .relaxed) }
}

/// A fixed-bucket histogram (Prometheus semantics: cumulative `le` buckets, sum and count).
public final class Histogram: Sendable {
    public let upperBounds: [Double]
    private let buckets: [Counter]
    // The sum is kept in microunits so it fits an integer atomic.
    private let sumMicro = Atomic<Int>(0)
    private let count = Atomic<Int>(0)

    public init(upperBounds: [Double]) {
        precondition(upperBounds == upperBounds.sorted(), "histogram bounds must be ascending")
        self.upperBounds = upperBounds
        buckets = upperBounds.map { _ in Counter() }
    }

    public func observe(_ value: Double) {
        if let index = upperBounds.firstIndex(where: { value <= $0 }) {
            buckets[index].increment()
        }
        sumMicro.add(Int((value * 1_000_000).rounded()), ordering: .relaxed)
        count.add(1, ordering: .relaxed)
    }

    /// Cumulative counts per bound, the total count and the sum.
    public var snapshot: (cumulative: [Int], count: Int, sum: Double) {
        var running = 0
        let cumulative = buckets.map { bucket -> Int in
            running += bucket.current
            return running
        }
        return (cumulative, count.load(ordering: .relaxed), Double(sumMicro.load(ordering: .relaxed)) / 1_000_000)
    }
}

/// The process-wide metric registry. Metrics are created once (at wiring time) and then
/// updated lock-free; the registry lock is only taken to register and to render.
///
/// Every metric comes from a `MetricDescriptor` (`MetricCatalogue` lists the gateway's): the
/// descriptor fixes the name, type, help and label names, so two call sites cannot disagree.
/// Label values are fixed strings chosen by the code (reason codes, status classes), never
/// request data or secrets (docs/style.md §4).
public final class MetricsRegistry: Sendable {
    private enum Metric: Sendable {
        case counter(Counter)
        case gauge(Gauge)
        case histogram(Histogram)
    }

    private struct Key: Hashable, Sendable, Comparable {
        var name: String
        var labels: [String: String]

        static func < (lhs: Key, rhs: Key) -> Bool {
            (lhs.name, lhs.renderedLabels) < (rhs.name, rhs.renderedLabels)
        }

        var renderedLabels: String {
            labels.keys.sorted().map { "\($0)=\"\(Key.escape(labels[$0] ?? ""))\"" }.joined(separator: ",")
        }

        static func escape(_ value: String) -> String {
            value.replacingOccurrencesOfBackslashQuoteNewline()
        }
    }

    private let metrics = Locked<[Key: Metric]>([:])
    private let descriptors = Locked<[String: MetricDescriptor]>([:])

    public init() {}

    /// The shared registry used when none is injected.
    public static let shared = MetricsRegistry()

    public func counter(_ descriptor: MetricDescriptor, labels: [String: String] = [:]) -> Counter {
        let key = register(descriptor, labels: labels, kind: "counter")
        return metrics.withLock { metrics in
            if case .counter(let existing)? = metrics[key] { return existing }
            let created = Counter()
            metrics[key] = .counter(created)
            return created
        }
    }

    public func gauge(_ descriptor: MetricDescriptor, labels: [String: String] = [:]) -> Gauge {
        let key = register(descriptor, labels: labels, kind: "gauge")
        return metrics.withLock { metrics in
            if case .gauge(let existing)? = metrics[key] { return existing }
            let created = Gauge()
            metrics[key] = .gauge(created)
            return created
        }
    }

    public func histogram(_ descriptor: MetricDescriptor, labels: [String: String] = [:]) -> Histogram {
        let key = register(descriptor, labels: labels, kind: "histogram")
        return metrics.withLock { metrics in
            if case .histogram(let existing)? = metrics[key] { return existing }
            let upperBounds: [Double]
            if case .histogram(let bounds) = descriptor.kind { upperBounds = bounds } else { upperBounds = [] }
            let created = Histogram(upperBounds: upperBounds)
            metrics[key] = .histogram(created)
            return created
        }
    }

    /// Checks the descriptor against the conventions and the call against the descriptor. A
    /// mismatch is a programming error the unit tests reach (the catalogue's test checks every
    /// descriptor), so it traps in debug builds only; a release build still serves its metrics.
    private func register(_ descriptor: MetricDescriptor, labels: [String: String], kind: String) -> Key {
        assert(descriptor.kind.typeName == kind, "\(descriptor.name) is a \(descriptor.kind.typeName), not a \(kind)")
        assert(Set(labels.keys) == descriptor.labelNames, "\(descriptor.name) takes the labels \(descriptor.labelNames.sorted())")
        assert(descriptor.conventionProblems.isEmpty, descriptor.conventionProblems.joined(separator: "; "))
        descriptors.withLock { descriptors in
            if descriptors[descriptor.name] == nil { descriptors[descriptor.name] = descriptor }
        }
        return Key(name: descriptor.name, labels: labels)
    }

    /// The Prometheus text exposition format (version 0.0.4).
    public func renderPrometheus() -> String {
        let entries = metrics.withLock { metrics in metrics.sorted { $0.key < $1.key } }
        let descriptions = descriptors.withLock { $0 }
        var out = ""
        var described = Set<String>()
        for (key, metric) in entries {
            let name = key.name
            if described.insert(name).inserted, let descriptor = descriptions[name] {
                out += "# HELP \(name) \(descriptor.help)\n"
                out += "# TYPE \(name) \(descriptor.kind.typeName)\n"
            }
            let labels = key.renderedLabels
            switch metric {
            case .counter(let counter):
                out += "\(name)\(labels.isEmpty ? "" : "{\(labels)}") \(counter.current)\n"
            case .gauge(let gauge):
                out += "\(name)\(labels.isEmpty ? "" : "{\(labels)}") \(gauge.current)\n"
            case .histogram(let histogram):
                let snapshot = histogram.snapshot
                let prefix = labels.isEmpty ? "" : labels + ","
                for (bound, cumulative) in zip(histogram.upperBounds, snapshot.cumulative) {
                    out += "\(name)_bucket{\(prefix)le=\"\(bound)\"} \(cumulative)\n"
                }
                out += "\(name)_bucket{\(prefix)le=\"+Inf\"} \(snapshot.count)\n"
                out += "\(name)_sum\(labels.isEmpty ? "" : "{\(labels)}") \(snapshot.sum)\n"
                out += "\(name)_count\(labels.isEmpty ? "" : "{\(labels)}") \(snapshot.count)\n"
            }
        }
        return out
    }
}

extension String {
    /// Escapes a Prometheus label value (backslash, double quote, newline).
    fileprivate func replacingOccurrencesOfBackslashQuoteNewline() -> String {
        var out = ""
        for character in self {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}
