public import AppNativeCore
import AppNativeCrypto
public import AppNativeHTTP
public import AppNativeServer

/// The reverse proxy on one event loop: every exchange goes to an upstream through one of this
/// loop's pools. Later layers (authentication, routes, native routes) wrap it and call
/// `forward(_:extraHeaders:pool:)`; served alone, it forwards to its own upstream.
public final class ProxyHandler: HTTPExchangeHandler {
    /// The pool `serve` forwards to, when built with an upstream.
    public let pool: UpstreamPool?
    private let trustedProxies: TrustedProxies
    /// Fields no client may send upstream, removed from every head and trailer section.
    let removedFields: FieldNamePatterns
    /// Cookie families of the gateway's own (the sign-in's per-attempt cookies) removed from `Cookie`.
    let strippedCookiePrefixes: [String]
    private let logger: Logger
    private let accessLog: AccessLog
    private let errors: [ErrorCause: Counter]
    private var active: [ObjectIdentifier: ProxyExchange] = [:]
    private let requestIDs = RequestIDGenerator()
    /// The sampler and the span recorder (W3C Trace Context, OTLP export).
    private let tracing: ExchangeTracing
    /// Span and trace ids: unique, not secret (they travel in clear to every hop), so a fast
    /// generator seeded from the system's randomness rather than a cryptographic draw each.
    private var traceRandom = TraceIDGenerator()

    enum ErrorCause: String, CaseIterable {
        case connectFailed = "upstream_connect"
        case connectTimeout = "upstream_connect_timeout"
        case responseTimeout = "upstream_timeout"
        case invalidResponse = "upstream_invalid_response"
        case resetMidResponse = "upstream_reset"
        case retried = "upstream_retry"
    }

    public init(
        loop: EventLoop,
        upstream: UpstreamConfiguration?,
        trustedProxies: TrustedProxies,
        removingFields removedFields: FieldNamePatterns,
        removingCookiesStartingWith strippedCookiePrefixes: [String] = [],
        accessLog: AccessLog,
        tracing: ExchangeTracing = ExchangeTracing(),
        logger: Logger,
        metrics: MetricsRegistry
    ) {
        self.tracing = tracing
        pool = upstream.map { UpstreamPool(loop: loop, configuration: $0, metrics: metrics) }
        self.trustedProxies = trustedProxies
        // The client's trace fields go with the other removed fields, in the same pass: the
        // gateway always writes its own (`TraceContext.appendFields`).
        self.removedFields = FieldNamePatterns(removedFields.names + [TraceParent.header, TraceState.header])
        self.strippedCookiePrefixes = strippedCookiePrefixes
        self.accessLog = accessLog
        self.logger = logger
        var errors = [ErrorCause: Counter]()
        for cause in ErrorCause.allCases {
            errors[cause] = metrics.counter(MetricCatalogue.httpErrors, labels: ["cause": cause.rawValue])
        }
        self.errors = errors
    }

    public func serve(_ exchange: HTTPExchange) {
        guard let pool else {
            exchange.respondJSONError(status: 502, detail: "No upstream")
            return
        }
        forward(exchange, extraHeaders: HTTPHeaders(), pool: pool)
    }

    /// Sends `exchange` upstream with `extraHeaders` added after the forwarding headers.
    ///
    /// Fields of `removedFields` a client sent (the gateway's: forged identity headers) are always
    /// removed first;
    /// `strippedCookie` is removed from `Cookie`, and `Authorization` unless `keepsAuthorization`.
    /// `pool` is the upstream (the route's, or a native route's own URL), `alternates` the route's
    /// other URLs, tried in order when every address of `pool` fails before a byte of the request
    /// left (they must write requests alike: same path prefix and `Host`); `target` replaces the
    /// request target (a route that strips its prefix). A `mediation` (native routes) filters the
    /// body and reshapes the answer, and its target wins over `target`; `requestID` is the one
    /// the caller already resolved for its own logs.
    @discardableResult
    public func forward(
        _ exchange: HTTPExchange,
        extraHeaders: HTTPHeaders,
        strippedCookie: String? = nil,
        keepsAuthorization: Bool = true,
        mediation: ExchangeMediation? = nil,
        pool: UpstreamPool,
        alternates: [UpstreamPool] = [],
        target: String? = nil,
        requestID: String? = nil
    ) -> ForwardedExchange {
        let request = exchange.request
        let requestID = requestID ?? RequestID.resolve(from: request.headers, generator: requestIDs)
        // Only a complete WebSocket handshake keeps its upgrade; any other Upgrade is removed, so
        // an upgrade asked for on POST or without a key is forwarded as a plain request.
        let isWebSocket = WebSocketHandshake.isUpgradeRequest(request)
        // Room for what is added below (forwarding fields, request id, the caller's fields): the
        // shared field list is copied once, at its final size, instead of copied and then grown.
        var head = request.forwardingHead(
            framing: exchange.framing,
            fallbackHost: pool.configuration.hostHeader,
            keepingWebSocketUpgrade: isWebSocket,
            extraFields: 10 + extraHeaders.count,
            extraBytes: 400 + extraHeaders.storedByteCount
        )
        if let target = mediation?.upstreamTarget ?? target { head.target = target }
        if !pool.configuration.pathPrefix.isEmpty { head.target = pool.configuration.pathPrefix + head.target }
        // We answer `Expect: 100-continue` ourselves when we start reading the body.
        head.headers.remove("Expect")
        // httpoxy: a `Proxy` request header becomes HTTP_PROXY in CGI-style upstreams.
        head.headers.remove("Proxy")
        // Removed before the forwarding fields are added: fewer fields to scan, and no forwarding
        // name is one of them.
        removedFields.remove(from: &head.headers)
        ForwardingHeaders.apply(
            to: &head.headers,
            original: request.headers,
            peer: exchange.peer,
            isSecure: exchange.isSecure,
            trusted: trustedProxies,
            host: head.headers.first("Host")
        )
        // UPSTREAM_HOST_HEADER=upstream: the backend is addressed by its own name (the client's
        // stays in X-Forwarded-Host, added above).
        if pool.configuration.hostHeaderMode == .upstream { head.headers.replaceOrAdd(name: "Host", value: pool.configuration.hostHeader) }
        if !keepsAuthorization { head.headers.remove("Authorization") }
        if strippedCookie != nil || !strippedCookiePrefixes.isEmpty {
            Self.strip(strippedCookie, orNamesStartingWith: strippedCookiePrefixes, from: &head.headers)
        }
        head.headers.replaceOrAdd(name: RequestID.header, value: requestID)
        // The caller's trace continued (or a new one started) with the gateway's span as parent.
        let trace = traceContext(for: request.headers)
        trace.appendFields(to: &head.headers)
        head.headers.append(contentsOf: extraHeaders)
        let proxy = ProxyExchange(
            exchange: exchange, pool: pool, handler: self, upstreamHead: head, requestID: requestID,
            asksForUpgrade: isWebSocket, mediation: mediation, alternates: alternates
        )
        proxy.trace = trace
        active[ObjectIdentifier(exchange)] = proxy
        proxy.start()
        return ForwardedExchange(proxy)
    }

    /// Removes the cookie called `name` (and those whose names start with one of `prefixes`) from
    /// the `Cookie` fields, which are joined into one (or
    /// dropped when nothing is left). Read in place: a request without that cookie is left as it
    /// is, and ASCII fields (all in practice) are rebuilt from their bytes without a `String`.
    static func strip(_ name: String?, orNamesStartingWith prefixes: [String] = [], from headers: inout HTTPHeaders) {
        var kept: [UInt8] = []
        var found = false
        var allASCII = true
        // unsafe: each field's bytes are a view valid inside the closure; they are copied into `kept`.
        unsafe headers.forEachValueBytes("Cookie") { field, isASCII in
            allASCII = allASCII && isASCII
            if unsafe CookieHeader.appendRemaining(of: field, removing: name, orNamesStartingWith: prefixes, to: &kept) { found = true }
            return true
        }
        guard found else { return }
        guard allASCII else {
            // obs-text: through strings, transcoded exactly as `add(name:value:)` does.
            let remaining = headers.values("Cookie").compactMap { CookieHeader.removing(name, orNamesStartingWith: prefixes, from: $0) }
            headers.remove("Cookie")
            if !remaining.isEmpty { headers.add(name: "Cookie", value: remaining.joined(separator: "; ")) }
            return
        }
        headers.remove("Cookie")
        // unsafe: `kept`'s buffer is valid inside the closure; the headers copy it.
        if !kept.isEmpty { unsafe kept.withUnsafeBufferPointer { unsafe headers.add(name: "Cookie", valueBytes: $0) } }
    }

    public func exchangeDidEnd(_ exchange: HTTPExchange) {
        let proxy = active.removeValue(forKey: ObjectIdentifier(exchange))
        proxy?.clientExchangeEnded()
        proxy?.pool.countResponse(status: exchange.responseStatus)
        let requestID = proxy?.requestID ?? RequestID.resolve(from: exchange.request.headers, generator: requestIDs)
        // An exchange the gateway answered itself (an endpoint, a refusal, forward-auth's `verify`)
        // still has its span: a child of the caller's, never sent anywhere but the exporter.
        let trace = proxy?.trace ?? traceContext(for: exchange.request.headers)
        accessLog.record(
            exchange,
            requestID: requestID,
            traceID: trace.traceID.hex,
            upstreamNanoseconds: proxy?.upstreamDuration,
            extra: exchange.logFields
        )
        if trace.isSampled, let recorder = tracing.recorder {
            let client = exchange.peer.map {
                trustedProxies.clientAddress(peer: $0.host, forwardedFor: exchange.request.headers.values("X-Forwarded-For"))
            }
            recorder.record(ExchangeSpan.of(exchange, context: trace, clientAddress: client ?? "unknown", requestID: requestID))
        }
    }

    /// The trace context of a request with `headers`: the caller's trace continued, or a new one.
    private func traceContext(for headers: HTTPHeaders) -> TraceContext {
        TraceContext.resolve(from: headers, sampler: tracing.sampler) { traceRandom.next() }
    }

    func count(_ cause: ErrorCause) {
        errors[cause]?.increment()
    }

    func logUpstreamError(status: Int, detail: String, requestID: String) {
        logger.warning("upstream error", ["request.id": requestID, "http.status": String(status), "error": detail])
    }
}

@available(*, unavailable, message: "loop-owned")
extension ProxyHandler: Sendable {}

/// A forwarded exchange, for the layer that forwarded it to end it early. Holds it weakly: an
/// exchange that already ended is left alone.
public final class ForwardedExchange {
    private weak var proxy: ProxyExchange?

    init(_ proxy: ProxyExchange) { self.proxy = proxy }

    /// Ends a WebSocket tunnel with close code 4401 or an event stream with the end of its body
    /// once `delay` has passed, because the credential it was admitted with expired, calling
    /// `onExpiry` first (for a log line). The deadline belongs to the exchange: it goes when the
    /// exchange (or its tunnel) ends, whichever way, so a short stream admitted with a
    /// long-lived credential leaves nothing behind.
    public func endWhenCredentialExpires(after delay: Duration, onExpiry: @escaping () -> Void) {
        proxy?.endWhenCredentialExpires(after: delay, onExpiry: onExpiry)
    }
}

@available(*, unavailable, message: "loop-owned")
extension ForwardedExchange: Sendable {}
