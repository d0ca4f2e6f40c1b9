public import AppNativeProxy

/// One OTLP export: the gateway's resource, its instrumentation scope and the spans
/// (`ExportTraceServiceRequest` → `ResourceSpans` → `ScopeSpans` → `Span`, opentelemetry-proto
/// `trace/v1`), encoded as OTLP/HTTP sends it: protobuf or JSON.
public struct OTLPBatch: Sendable {
    public var resource: [SpanAttribute]
    public var scopeName: String
    public var scopeVersion: String
    public var spans: [ExchangeSpan]

    public init(resource: [SpanAttribute], scopeName: String, scopeVersion: String, spans: [ExchangeSpan]) {
        self.resource = resource
        self.scopeName = scopeName
        self.scopeVersion = scopeVersion
        self.spans = spans
    }

    /// `SPAN_KIND_SERVER`.
    static let serverKind = 2
    /// `STATUS_CODE_ERROR`; a span without an error leaves its status unset.
    static let errorStatus = 2
}
