/// Which traces are sampled (the `sampled` flag the upstream sees, and whether the gateway's span
/// is exported): OpenTelemetry's samplers as `OTEL_TRACES_SAMPLER` names them.
public enum TraceSampler: Sendable, Hashable {
    case alwaysOn
    case alwaysOff
    /// A fraction 0…1 of traces, decided by the trace id alone, so every service with the same
    /// ratio keeps the same traces.
    case traceIDRatio(Double)
    /// A caller's decision (its `sampled` flag) is followed; `root` decides for new traces.
    indirect case parentBased(root: TraceSampler)

    /// OpenTelemetry's default: `parentbased_always_on`.
    public static let standard = TraceSampler.parentBased(root: .alwaysOn)

    /// The sampler of `OTEL_TRACES_SAMPLER` (and its `OTEL_TRACES_SAMPLER_ARG`, the ratio of the
    /// `traceidratio` samplers, 1 when absent), or `nil` for a name or argument it does not know.
    public init?(name: String, argument: String?) {
        func ratio() -> Double? {
            guard let argument else { return 1 }
            guard let value = Double(argument), value >= 0, value <= 1 else { return nil }
            return value
        }
        switch name {
        case "always_on": self = .alwaysOn
        case "always_off": self = .alwaysOff
        case "traceidratio":
            guard let ratio = ratio() else { return nil }
            self = .traceIDRatio(ratio)
        case "parentbased_always_on": self = .parentBased(root: .alwaysOn)
        case "parentbased_always_off": self = .parentBased(root: .alwaysOff)
        case "parentbased_traceidratio":
            guard let ratio = ratio() else { return nil }
            self = .parentBased(root: .traceIDRatio(ratio))
        default: return nil
        }
    }

    /// Whether the span of `traceID`, whose caller sent `parent` (or nothing), is sampled.
    public func isSampled(_ traceID: TraceID, parent: TraceParent?) -> Bool {
        switch self {
        case .alwaysOn: return true
        case .alwaysOff: return false
        case .traceIDRatio(let ratio):
            // The low 56 bits: the part of a trace id W3C Trace Context Level 2 asks to be random.
            // Compared as integers: the ratio's bound is exact, and ratio 1 keeps every trace.
            let bound = UInt64((min(max(ratio, 0), 1) * Double(UInt64(1) << 56)).rounded(.down))
            return traceID.low & ((UInt64(1) << 56) - 1) < bound
        case .parentBased(let root):
            if let parent { return parent.isSampled }
            return root.isSampled(traceID, parent: nil)
        }
    }
}
