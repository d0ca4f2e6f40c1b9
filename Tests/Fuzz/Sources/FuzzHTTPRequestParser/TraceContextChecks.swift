import AppNativeHTTP

/// W3C Trace Context on the same input: the raw bytes as one `traceparent` and one `tracestate`
/// value, and the fields of every parsed head as the proxy reads them. A parsed `traceparent`
/// prints as version 00 and parses back to itself; a kept `tracestate` is within its bounds and
/// keeps itself; the context the proxy applies leaves exactly one valid `traceparent`.
enum TraceContextChecks {
    static func run(raw bytes: [UInt8], heads: [HTTPRequestHead]) {
        if let parent = TraceParent.parse(bytes) {
            check(bytes.count >= 55, "a traceparent shorter than 55 bytes parsed")
            check(parent.traceID.isValid && parent.parentID.isValid, "an all-zero id parsed")
            check(TraceParent.parse(Array(parent.headerValue.utf8)) == parent, "traceparent does not round-trip")
        }
        checkState(TraceState.normalized(bytes))
        for head in heads {
            checkState(TraceState.normalized(from: head.headers))
            var draws: UInt64 = 0
            let context = TraceContext.resolve(from: head.headers, sampler: .standard) {
                draws &+= 0x9E37_79B9_7F4A_7C15
                return draws
            }
            if let parent = TraceParent.parse(from: head.headers) {
                check(context.traceID == parent.traceID && context.parentSpanID == parent.parentID, "a valid trace was not continued")
            } else {
                check(context.parentSpanID == nil && context.traceState == nil, "an invalid trace kept its parent or state")
            }
            var forwarded = head.headers
            context.apply(to: &forwarded)
            let values = forwarded.values(TraceParent.header)
            check(values.count == 1, "\(values.count) traceparent fields forwarded")
            check(TraceParent.parse(from: forwarded)?.traceID == context.traceID, "the forwarded traceparent is not the context's")
        }
    }

    private static func checkState(_ state: String?) {
        guard let state else { return }
        check(!state.isEmpty && state.utf8.count <= TraceState.maxLength, "tracestate out of bounds: \(state.utf8.count)")
        check(TraceState.normalized(Array(state.utf8)) == state, "a kept tracestate does not keep itself")
    }
}
