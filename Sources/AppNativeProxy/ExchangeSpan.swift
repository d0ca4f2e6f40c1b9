public import AppNativeHTTP
import AppNativeServer
import Glibc

/// The gateway's server span of one request, as it is exported: its trace context, name, times
/// and attributes (OpenTelemetry's HTTP semantic conventions, and the gateway's own
/// `appnative.*`). Never headers other than `User-Agent` and `Host`, tokens, cookies or user ids.
public struct ExchangeSpan: Sendable {
    public var context: TraceContext
    /// `METHOD` or `METHOD route` (a native route's name): low cardinality, never the path.
    public var name: String
    public var startUnixNanoseconds: UInt64
    public var endUnixNanoseconds: UInt64
    public var attributes: [SpanAttribute]
    /// A 5xx answer, or no answer at all (OpenTelemetry's server span status rule).
    public var isError: Bool

    public init(
        context: TraceContext, name: String, startUnixNanoseconds: UInt64, endUnixNanoseconds: UInt64,
        attributes: [SpanAttribute], isError: Bool
    ) {
        self.context = context
        self.name = name
        self.startUnixNanoseconds = startUnixNanoseconds
        self.endUnixNanoseconds = endUnixNanoseconds
        self.attributes = attributes
        self.isError = isError
    }

    /// Longest attribute value kept, in characters: a request line may be far longer, and a
    /// queued span's size must stay bounded.
    public static let maxAttributeLength = 1024

    /// Methods kept as they are (RFC 9110 §9 and PATCH); others are `_OTHER`, with the method in
    /// `http.request.method_original`, so a client cannot mint span names.
    static let knownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]

    /// The span of `exchange`, which just ended.
    static func of(
        _ exchange: HTTPExchange, context: TraceContext, clientAddress: String, requestID: String
    ) -> ExchangeSpan {
        let request = exchange.request
        var time = timespec()
        // unsafe: clock_gettime writes one timespec into a local it is given the address of.
        unsafe clock_gettime(CLOCK_REALTIME, &time)
        let end = UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
        let elapsed = exchange.loop.nowNanoseconds &- exchange.startedAt
        let start = end >= elapsed ? end - elapsed : 0
        let isKnownMethod = knownMethods.contains(request.method)
        let method = isKnownMethod ? request.method : "_OTHER"
        var path = request.target
        if let query = path.firstIndex(of: "?") { path = String(path[..<query]) }
        var attributes: [SpanAttribute] = [
            .init("http.request.method", .string(method)),
            .init("url.path", .string(bounded(path))),
            .init("url.scheme", .string(exchange.isSecure ? "https" : "http")),
            .init("network.protocol.version", .string("\(request.version.major).\(request.version.minor)")),
            .init("client.address", .string(bounded(clientAddress))),
            .init("appnative.request_id", .string(requestID)),
        ]
        if !isKnownMethod { attributes.append(.init("http.request.method_original", .string(bounded(request.method)))) }
        let status = exchange.responseStatus
        if status != 0 { attributes.append(.init("http.response.status_code", .int(Int64(status)))) }
        if let host = request.headers.first("Host") {
            let (address, port) = splitHost(host)
            attributes.append(.init("server.address", .string(bounded(address))))
            if let port { attributes.append(.init("server.port", .int(Int64(port)))) }
        }
        if let agent = request.headers.first("User-Agent") {
            attributes.append(.init("user_agent.original", .string(bounded(agent))))
        }
        // What the gateway decided, from the fields it logs (never the user's id).
        let fields = exchange.logFields
        if let value = fields["auth.method"] { attributes.append(.init("appnative.auth.method", .string(value))) }
        if let value = fields["auth.reason"] { attributes.append(.init("appnative.auth.reason", .string(value))) }
        if let value = fields["auth.caller"] { attributes.append(.init("appnative.auth.caller", .string(value))) }
        if let value = fields["native.route"] { attributes.append(.init("appnative.native.route", .string(value))) }
        let isError = status == 0 || status >= 500 || !exchange.isResponseComplete
        if status >= 500 {
            attributes.append(.init("error.type", .string(String(status))))
        } else if isError {
            attributes.append(.init("error.type", .string("incomplete")))
        }
        let route = fields["native.route"].map { " " + $0 } ?? ""
        return ExchangeSpan(
            context: context, name: method + route, startUnixNanoseconds: start, endUnixNanoseconds: end,
            attributes: attributes, isError: isError)
    }

    private static func bounded(_ value: String) -> String {
        value.count > maxAttributeLength ? String(value.prefix(maxAttributeLength)) : value
    }

    /// `host[:port]` or `[v6][:port]`, as `Host` carries it.
    static func splitHost(_ host: String) -> (String, Int?) {
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            let address = String(host[host.index(after: host.startIndex)..<close])
            let rest = host[host.index(after: close)...]
            if rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (0...65535).contains(port) { return (address, port) }
            return (address, nil)
        }
        if let colon = host.lastIndex(of: ":"), let port = Int(host[host.index(after: colon)...]), (0...65535).contains(port) {
            return (String(host[..<colon]), port)
        }
        return (host, nil)
    }
}

/// One span attribute: a key and a string, integer or Boolean value.
public struct SpanAttribute: Sendable, Hashable {
    public enum Value: Sendable, Hashable {
        case string(String)
        case int(Int64)
        case bool(Bool)
    }

    public var key: String
    public var value: Value

    public init(_ key: String, _ value: Value) {
        self.key = key
        self.value = value
    }
}

/// Where finished, sampled spans go (the OTLP exporter). Called on an event loop: it must not
/// block, and it drops rather than waits when it cannot keep up.
public protocol SpanRecording: Sendable {
    func record(_ span: ExchangeSpan)
}

/// How the proxy traces: the sampler deciding the `sampled` flag, and the recorder of sampled
/// spans (`nil`: nothing is exported, the trace context is still continued or started).
public struct ExchangeTracing: Sendable {
    public var sampler: TraceSampler
    public var recorder: (any SpanRecording)?

    public init(sampler: TraceSampler = .standard, recorder: (any SpanRecording)? = nil) {
        self.sampler = sampler
        self.recorder = recorder
    }
}
