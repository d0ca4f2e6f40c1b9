// Unsafe (pointer scanning on the request path): every function reads only inside the buffer or
// the `start..<end` range it is given, checking the index before each read, and the buffer is
// borrowed by its caller (a parser's input, a field's bytes in HTTPHeaders) for the call; nothing
// keeps a pointer past it. See docs/memory-safety.md.

/// The gateway's span of one request: continued from the caller's `traceparent` (same trace id,
/// the caller's span as parent, its `tracestate` passed on) or the start of a new trace when the
/// request has none or an invalid one (whose `tracestate` is then dropped, §3.3.1.1).
public struct TraceContext: Sendable, Hashable {
    public var traceID: TraceID
    /// The gateway's own span: the `parent-id` the upstream receives.
    public var spanID: SpanID
    /// The caller's span, when the trace was continued.
    public var parentSpanID: SpanID?
    public var isSampled: Bool
    /// The validated, bounded `tracestate` to pass on.
    public var traceState: String?

    public init(traceID: TraceID, spanID: SpanID, parentSpanID: SpanID?, isSampled: Bool, traceState: String?) {
        self.traceID = traceID
        self.spanID = spanID
        self.parentSpanID = parentSpanID
        self.isSampled = isSampled
        self.traceState = traceState
    }

    /// The context for a request with `headers`.
    ///
    /// - Parameters:
    ///   - random: random bits for the new span id, and for a new trace id when one starts;
    ///     a zero draw is replaced (ids may not be all zeros).
    public static func resolve(
        from headers: HTTPHeaders, sampler: TraceSampler, random: () -> UInt64
    ) -> TraceContext {
        func nonZero() -> UInt64 {
            let value = random()
            return value == 0 ? 1 : value
        }
        let spanID = SpanID(nonZero())
        guard let parent = TraceParent.parse(from: headers) else {
            let traceID = TraceID(high: random(), low: nonZero())
            return TraceContext(
                traceID: traceID, spanID: spanID, parentSpanID: nil, isSampled: sampler.isSampled(traceID, parent: nil), traceState: nil)
        }
        return TraceContext(
            traceID: parent.traceID, spanID: spanID, parentSpanID: parent.parentID,
            isSampled: sampler.isSampled(parent.traceID, parent: parent), traceState: TraceState.normalized(from: headers))
    }

    /// The `traceparent` the upstream receives: this trace, the gateway's span as parent.
    public var traceparent: String {
        TraceParent(traceID: traceID, parentID: spanID, flags: isSampled ? TraceParent.sampledFlag : 0).headerValue
    }

    /// Replaces the caller's `traceparent` and `tracestate` in `headers` with this context's.
    public func apply(to headers: inout HTTPHeaders) {
        headers.remove(TraceParent.header)
        headers.remove(TraceState.header)
        appendFields(to: &headers)
    }

    /// Adds this context's `traceparent` (and `tracestate`) to `headers` that have none: for a
    /// caller that removed the client's with its other removed fields, in the same pass.
    public func appendFields(to headers: inout HTTPHeaders) {
        // Written from its bytes: no `String` on the way (every forwarded request has one).
        unsafe TraceParent(traceID: traceID, parentID: spanID, flags: isSampled ? TraceParent.sampledFlag : 0).headerBytes.withUnsafeBufferPointer {
            unsafe headers.add(name: TraceParent.header, valueBytes: $0)
        }
        if let traceState { headers.add(name: TraceState.header, value: traceState) }
    }
}
