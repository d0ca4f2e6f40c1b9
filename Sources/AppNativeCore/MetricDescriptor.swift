/// What a metric is: its exposed name, type, help text and the label names it carries.
/// `MetricCatalogue` holds every metric the gateway exposes; the code creates metrics only
/// from descriptors, so docs/operations.md (generated from the catalogue) cannot drift from
/// what `/metrics` serves.
public struct MetricDescriptor: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case counter
        case gauge
        case histogram(upperBounds: [Double])

        /// The word of the `# TYPE` line.
        public var typeName: String {
            switch self {
            case .counter: "counter"
            case .gauge: "gauge"
            case .histogram: "histogram"
            }
        }
    }

    /// A label the code sets, with what its values mean (for the docs).
    public struct Label: Sendable, Hashable {
        public var name: String
        public var meaning: String

        public init(_ name: String, _ meaning: String = "") {
            self.name = name
            self.meaning = meaning
        }
    }

    public var name: String
    public var kind: Kind
    /// One line for `# HELP`.
    public var help: String
    public var labels: [Label]
    /// More for the docs than `# HELP` carries; empty when the help says it all.
    public var detail: String

    public init(_ name: String, _ kind: Kind, help: String, labels: [Label] = [], detail: String = "") {
        self.name = name
        self.kind = kind
        self.help = help
        self.labels = labels
        self.detail = detail
    }

    public static func counter(_ name: String, help: String, labels: [Label] = [], detail: String = "") -> Self {
        Self(name, .counter, help: help, labels: labels, detail: detail)
    }

    public static func gauge(_ name: String, help: String, labels: [Label] = [], detail: String = "") -> Self {
        Self(name, .gauge, help: help, labels: labels, detail: detail)
    }

    public static func histogram(
        _ name: String, upperBounds: [Double], help: String, labels: [Label] = [], detail: String = ""
    ) -> Self {
        Self(name, .histogram(upperBounds: upperBounds), help: help, labels: labels, detail: detail)
    }

    public var labelNames: Set<String> { Set(labels.map(\.name)) }

    /// The Prometheus naming conventions this descriptor breaks (empty when it keeps them): the
    /// `appnative_` prefix, snake case, `_total` on counters and only on counters, base units
    /// (seconds, bytes) rather than scaled ones, `_info` gauges, ascending histogram bounds,
    /// label names that are not reserved. The catalogue's test runs it over every descriptor,
    /// so a wrong name fails a unit test rather than a scrape.
    public var conventionProblems: [String] {
        var problems: [String] = []
        let lowerSnake = { (text: String) in
            !text.isEmpty && text.first != "_" && text.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
                && !text.contains("__") && text.first.map { !("0"..."9").contains($0) } == true
        }
        if !name.hasPrefix("appnative_") { problems.append("\(name): not prefixed appnative_") }
        if !lowerSnake(name) { problems.append("\(name): not lower snake case") }
        let isTotal = name.hasSuffix("_total")
        switch kind {
        case .counter:
            if !isTotal { problems.append("\(name): a counter's name ends in _total") }
        case .gauge, .histogram:
            if isTotal { problems.append("\(name): only counters end in _total") }
        }
        for reserved in ["_bucket", "_sum", "_count", "_created"] where name.hasSuffix(reserved) {
            problems.append("\(name): \(reserved) is a suffix Prometheus adds")
        }
        if name.hasSuffix("_info"), kind != .gauge { problems.append("\(name): an _info metric is a gauge") }
        let scaledUnits = ["milliseconds", "microseconds", "nanoseconds", "_ms", "_us", "_ns", "minutes", "hours", "days",
                           "kilobytes", "megabytes", "gigabytes", "_kb", "_mb", "bits"]
        for unit in scaledUnits where name.split(separator: "_").contains(where: { "_" + $0 == unit || String($0) == unit }) {
            problems.append("\(name): use base units (seconds, bytes), not \(unit.trimmingPrefix("_"))")
        }
        if case .histogram(let bounds) = kind {
            if bounds.isEmpty || bounds != bounds.sorted() || Set(bounds).count != bounds.count {
                problems.append("\(name): histogram bounds must be distinct and ascending")
            }
        }
        for label in labels {
            if !lowerSnake(label.name) { problems.append("\(name): label \(label.name) not lower snake case") }
            if label.name == "le" || label.name == "quantile" { problems.append("\(name): label \(label.name) is reserved") }
        }
        if labelNames.count != labels.count { problems.append("\(name): a label is listed twice") }
        if help.isEmpty || help.contains("\n") { problems.append("\(name): help is one non-empty line") }
        return problems
    }
}
