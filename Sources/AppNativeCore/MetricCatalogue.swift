/// Every metric the gateway exposes on `/metrics`. The code creates its metrics from these
/// descriptors (`MetricsRegistry.counter(_:labels:)` and its siblings), and
/// `app-native-gateway config metrics` prints this list as the table in docs/operations.md, so
/// the docs name exactly what a scrape returns. Names follow Prometheus' conventions
/// (`MetricDescriptor.conventionProblems`); a renamed metric breaks every dashboard and alert
/// that uses it, so names change only with a changelog entry.
public enum MetricCatalogue: Sendable {
    // Latency buckets: request and upstream durations span sub-millisecond proxying to minute-long
    // uploads; outbound calls (Graph, APNs, the authorization hook) stay under ten seconds.
    static let requestBounds = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]
    static let outboundBounds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    // MARK: Process

    public static let buildInfo = MetricDescriptor.gauge(
        "appnative_build_info", help: "Always 1; the labels name the running build",
        labels: [.init("version", "the gateway's version (`app-native-gateway version`)")])

    // MARK: Client connections and requests

    public static let httpConnectionsOpen = MetricDescriptor.gauge(
        "appnative_http_connections_open", help: "Open client connections",
        detail: "On the client listener; the admin and push listeners are not counted.")
    public static let httpConnectionsLimit = MetricDescriptor.gauge(
        "appnative_http_connections_limit", help: "Client connections allowed at once (MAX_CONNECTIONS)")
    public static let httpConnectionsAccepted = MetricDescriptor.counter(
        "appnative_http_connections_accepted_total", help: "Client connections accepted")
    public static let httpConnectionsRejected = MetricDescriptor.counter(
        "appnative_http_connections_rejected_total",
        help: "Client connections closed at once because the connection limit was reached")
    public static let httpRequests = MetricDescriptor.counter(
        "appnative_http_requests_total", help: "Requests by status class",
        labels: [.init("status", "`1xx`, `2xx`, `3xx`, `4xx`, `5xx`")])
    public static let httpRequestsByProtocol = MetricDescriptor.counter(
        "appnative_http_protocol_requests_total", help: "Requests by protocol",
        labels: [.init("protocol", "`http/1.1` (HTTP/1.0 included), `h2`")])
    public static let httpConnectionsHTTP2 = MetricDescriptor.counter(
        "appnative_http_connections_http2_total", help: "Client connections that chose HTTP/2 (ALPN or the cleartext preface)")
    public static let httpRequestDuration = MetricDescriptor.histogram(
        "appnative_http_request_duration_seconds", upperBounds: requestBounds,
        help: "Request duration, from the request head to the end of the response")
    public static let httpErrors = MetricDescriptor.counter(
        "appnative_http_errors_total", help: "Errors by cause",
        labels: [.init("cause", "`bad_request`, `client_timeout`, `upstream_connect`, `upstream_connect_timeout`, `upstream_timeout`, `upstream_invalid_response`, `upstream_reset`, `upstream_retry`")])

    // MARK: Upstream

    public static let upstreamDuration = MetricDescriptor.histogram(
        "appnative_upstream_duration_seconds", upperBounds: requestBounds,
        help: "Time to the upstream's response head")
    static let routeLabel = MetricDescriptor.Label("route", "`ROUTES_FILE`'s route name, `default` for `UPSTREAM_URL`")

    public static let upstreamPoolOpen = MetricDescriptor.gauge(
        "appnative_upstream_pool_open", help: "Open upstream connections per loop and route",
        labels: [.init("loop", "the event loop's index"), routeLabel])
    public static let upstreamPoolIdle = MetricDescriptor.gauge(
        "appnative_upstream_pool_idle", help: "Idle pooled upstream connections per loop and route",
        labels: [.init("loop", "the event loop's index"), routeLabel])
    public static let upstreamConnects = MetricDescriptor.counter(
        "appnative_upstream_connects_total", help: "New upstream connections", labels: [routeLabel])
    public static let upstreamReuses = MetricDescriptor.counter(
        "appnative_upstream_reuses_total", help: "Exchanges served on a pooled connection", labels: [routeLabel])
    public static let upstreamRetired = MetricDescriptor.counter(
        "appnative_upstream_retired_total",
        help: "Pooled upstream connections closed because their address is no longer listed or their route was reloaded away",
        labels: [routeLabel],
        detail: "The address left the host name's answer, or the route left `ROUTES_FILE`.")
    public static let upstreamResponses = MetricDescriptor.counter(
        "appnative_upstream_responses_total",
        help: "Answers to requests forwarded on a route, by status class (as the client got them)",
        labels: [routeLabel, .init("status", "`1xx`, `2xx`, `3xx`, `4xx`, `5xx`")])
    public static let upstreamAddresses = MetricDescriptor.gauge(
        "appnative_upstream_addresses", help: "Upstream addresses by state",
        labels: [.init("upstream", "the URL's `host:port`"), .init("state", "`healthy` (dialled), `ejected` (skipped after a refused or timed-out connect)")],
        detail: "0 and 0 while the name has never resolved.")
    public static let upstreamEjections = MetricDescriptor.counter(
        "appnative_upstream_ejections_total", help: "Upstream addresses ejected after a refused or timed-out connect",
        labels: [.init("upstream", "the URL's `host:port`"), .init("address", "`ip:port`, at most 64 distinct values per upstream, then `other`")])
    public static let upstreamDNSFailures = MetricDescriptor.counter(
        "appnative_upstream_dns_failures_total", help: "Failed lookups of an upstream's host name",
        labels: [.init("upstream", "the URL's `host:port`")],
        detail: "The last addresses are kept.")

    // MARK: TLS and configuration

    public static let tlsCertificateExpiry = MetricDescriptor.gauge(
        "appnative_tls_certificate_expiry_timestamp_seconds",
        help: "When the TLS certificate in use (TLS_CERT_FILE) expires, in seconds since the epoch",
        detail: "Only with TLS_CERT_FILE; follows the certificate a SIGHUP loads.")

    public static let configReloads = MetricDescriptor.counter(
        "appnative_config_reloads_total", help: "Reloads of a configuration file on SIGHUP",
        labels: [
            .init("file", "the setting naming the file: `TLS_CERT_FILE`, `ACCESS_POLICY_FILE`, `ROUTES_FILE`, each secret's `…_FILE` in use"),
            .init("outcome", "`ok`, `failed`"),
        ],
        detail: "A failed reload keeps what was in force.")

    // MARK: Tracing

    public static let tracingSpansDropped = MetricDescriptor.counter(
        "appnative_tracing_spans_dropped_total", help: "Spans dropped because the export queue was full")
    public static let tracingSpansExported = MetricDescriptor.counter(
        "appnative_tracing_spans_exported_total", help: "Spans the OTLP collector accepted")
    public static let tracingSpansFailed = MetricDescriptor.counter(
        "appnative_tracing_spans_failed_total", help: "Spans in exports that failed (not retried)")

    // MARK: Authentication

    public static let authOutcomes = MetricDescriptor.counter(
        "appnative_auth_outcomes_total", help: "Authentication outcomes",
        labels: [
            .init("result", "`authenticated`, `rejected`"),
            .init("reason", "the method (`token`, `cookie`) or the reason code: `expired`, `scope`, `app_only`, `app_not_allowed`, `token_kind`, `policy`, `groups_overage`, `keys_unavailable`, `graph_unavailable`, `graph_throttled`, …; `not_authenticated` without a credential; the session cookie's own code when one was refused, such as `deployment` for another deployment's cookie"),
        ])
    public static let authTokenCacheLookups = MetricDescriptor.counter(
        "appnative_auth_token_cache_lookups_total", help: "Verified-token cache lookups",
        labels: [.init("result", "`hit`, `miss`")])
    public static let authKeyWaits = MetricDescriptor.counter(
        "appnative_auth_key_waits_total", help: "Requests that waited for a JWKS reload")
    public static let jwksRefreshes = MetricDescriptor.counter(
        "appnative_jwks_refreshes_total", help: "JWKS reloads by outcome",
        labels: [.init("outcome", "`success`, `failure`")])
    public static let jwksKeys = MetricDescriptor.gauge(
        "appnative_jwks_keys", help: "Signing keys in the JWKS cache")
    public static let jwksLastSuccess = MetricDescriptor.gauge(
        "appnative_jwks_last_success_timestamp_seconds", help: "Wall time of the last successful JWKS reload",
        detail: "0 until the first success.")

    // MARK: Browser sign-in

    public static let signInStarted = MetricDescriptor.counter(
        "appnative_signin_started_total", help: "Browser sign-ins started (redirects to the provider)")
    public static let signInCompleted = MetricDescriptor.counter(
        "appnative_signin_completed_total", help: "Browser sign-ins that ended signed in")
    public static let signInFailures = MetricDescriptor.counter(
        "appnative_signin_failures_total", help: "Browser sign-ins that failed, by reason",
        labels: [.init("reason", "the sign-in's reason code (docs/troubleshooting.md), or `other`")])

    // MARK: Authorization

    public static let authorizeDuration = MetricDescriptor.histogram(
        "appnative_authorize_duration_seconds", upperBounds: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
        help: "Authorization hook latency")
    public static let authorizeDroppedHeaders = MetricDescriptor.counter(
        "appnative_authorize_dropped_headers_total", help: "Authorization hook response headers not passed upstream",
        labels: [.init("reason", "`invalid_name` (not a token), `invalid_value` (a control such as CR, LF or NUL)")],
        detail: "`X-Authz-*` fields of the hook's answer.")
    public static let graphRequests = MetricDescriptor.counter(
        "appnative_graph_requests_total", help: "Microsoft Graph getMemberGroups lookups by outcome",
        labels: [.init("outcome", "`ok`, `throttled` (Graph answered 429), `refused`, `malformed`, `unreachable`, `throttled_wait` (answered 503 without a call while Graph's `Retry-After` runs), `invalid_oid`")],
        detail: "`GROUPS_FROM_GRAPH` lookups.")
    public static let graphTokenRequests = MetricDescriptor.counter(
        "appnative_graph_token_requests_total", help: "Application token requests for Graph by outcome",
        labels: [.init("outcome", "`ok`, `refused`, `unreachable`, `malformed`, `credential`, `discovery`")])
    public static let graphCacheHits = MetricDescriptor.counter(
        "appnative_graph_cache_hits_total", help: "Groups overage lookups answered from the cache")
    public static let graphCacheMisses = MetricDescriptor.counter(
        "appnative_graph_cache_misses_total", help: "Groups overage lookups that called Graph")
    public static let graphCacheJoins = MetricDescriptor.counter(
        "appnative_graph_cache_joins_total", help: "Groups overage lookups that waited for a call in flight")
    public static let graphDuration = MetricDescriptor.histogram(
        "appnative_graph_duration_seconds", upperBounds: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        help: "Graph getMemberGroups latency")
    public static let graphTokenDuration = MetricDescriptor.histogram(
        "appnative_graph_token_duration_seconds", upperBounds: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        help: "Token endpoint latency for Graph")

    // MARK: Native routes

    public static let nativeRequests = MetricDescriptor.counter(
        "appnative_native_requests_total", help: "Native route requests",
        labels: [.init("route", "the native route")])
    public static let nativeRejections = MetricDescriptor.counter(
        "appnative_native_rejections_total", help: "Native requests refused",
        labels: [.init("route", "the native route"), .init("status", "`413`, `422`: refused by the gateway")])
    public static let nativeFeedEntriesDropped = MetricDescriptor.counter(
        "appnative_native_feed_entries_dropped_total", help: "Invalid widgets or approvals dropped from feeds",
        labels: [.init("route", "`widgets`, `approvals`")],
        detail: "The log line names the entry id and the failing path.")
    public static let nativeUpstreamFailures = MetricDescriptor.counter(
        "appnative_native_upstream_failures_total", help: "Native route upstream failures",
        labels: [.init("route", "the native route"), .init("cause", "`status` (the upstream answered 5xx or 3xx), `invalid_answer` (a feed or result the contract refuses)")])

    // MARK: Push

    public static let pushAPIRequests = MetricDescriptor.counter(
        "appnative_push_api_requests_total", help: "Push API requests",
        labels: [.init("status", "`200`, `401`, `404`, `405`, `413`, `422`, `503`")])
    public static let pushAPIDeadTokenWebhook = MetricDescriptor.counter(
        "appnative_push_api_dead_token_webhook_total", help: "Dead-token webhook calls",
        labels: [.init("outcome", "`delivered`, `failed`")])
    public static let apnsPushes = MetricDescriptor.counter(
        "appnative_apns_pushes_total", help: "APNs pushes by kind and outcome",
        labels: [.init("kind", "the notification kind"), .init("outcome", "`sent`, `rejected` (by Apple), `failed` (without an answer)")])
    public static let apnsReasons = MetricDescriptor.counter(
        "appnative_apns_reasons_total", help: "APNs refusal reasons",
        labels: [.init("reason", "Apple's reason name, `unknown` for others")])
    public static let apnsFailures = MetricDescriptor.counter(
        "appnative_apns_failures_total", help: "APNs pushes without an answer",
        labels: [.init("error", "`timeout`, `connection_failed`, `shut_down`")])
    public static let apnsRequestDuration = MetricDescriptor.histogram(
        "appnative_apns_request_duration_seconds", upperBounds: outboundBounds, help: "APNs request latency per attempt")
    public static let apnsStreamsOpen = MetricDescriptor.gauge(
        "appnative_apns_streams_open", help: "APNs requests in flight")
    public static let apnsProviderTokenAge = MetricDescriptor.gauge(
        "appnative_apns_provider_token_age_seconds", help: "Age of the provider token last used")
    public static let apnsRetries = MetricDescriptor.counter(
        "appnative_apns_retries_total", help: "APNs attempts retried")

    /// Every descriptor, in the order docs/operations.md lists them.
    public static let all: [MetricDescriptor] = [
        buildInfo,
        httpConnectionsOpen, httpConnectionsLimit, httpConnectionsAccepted, httpConnectionsRejected,
        httpRequests, httpRequestsByProtocol, httpConnectionsHTTP2, httpRequestDuration, httpErrors,
        upstreamResponses, upstreamDuration, upstreamPoolOpen, upstreamPoolIdle, upstreamConnects, upstreamReuses, upstreamRetired,
        upstreamAddresses, upstreamEjections, upstreamDNSFailures,
        tlsCertificateExpiry, configReloads,
        tracingSpansDropped, tracingSpansExported, tracingSpansFailed,
        authOutcomes, authTokenCacheLookups, authKeyWaits, jwksRefreshes, jwksKeys, jwksLastSuccess,
        signInStarted, signInCompleted, signInFailures,
        authorizeDuration, authorizeDroppedHeaders,
        graphRequests, graphTokenRequests, graphCacheHits, graphCacheMisses, graphCacheJoins, graphDuration, graphTokenDuration,
        nativeRequests, nativeRejections, nativeFeedEntriesDropped, nativeUpstreamFailures,
        pushAPIRequests, pushAPIDeadTokenWebhook,
        apnsPushes, apnsReasons, apnsFailures, apnsRequestDuration, apnsStreamsOpen, apnsProviderTokenAge, apnsRetries,
    ]

    /// The descriptor of an exposed metric name, or nil.
    public static func descriptor(named name: String) -> MetricDescriptor? {
        all.first { $0.name == name }
    }
}
