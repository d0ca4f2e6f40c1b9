import AppNativeCore
import AppNativeHTTP
import AppNativeJSON
import AppNativeProxy
import AppNativeRoutes
import AppNativeServer

/// The native routes on one event loop: matches a request to its route and builds the mediation
/// (body filter, answer mediator, upstream) that serves it through the proxy.
final class NativeRouter {
    private let configuration: NativeRoutesConfiguration
    private let metrics: NativeRouteMetrics
    private let logger: Logger
    /// This loop's pools for routes with their own URL.
    private let pools: [NativeRoute: UpstreamPool]

    /// `NATIVE_ROUTES`: whether routes serve the native routes unless they say otherwise.
    var isEnabled: Bool { configuration.isEnabled }

    init(loop: EventLoop, configuration: NativeRoutesConfiguration, metrics: NativeRouteMetrics, registry: MetricsRegistry, logger: Logger) {
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
        pools = configuration.routeUpstreams.mapValues { UpstreamPool(loop: loop, configuration: $0.upstream, metrics: registry) }
    }

    enum Match {
        case route(NativeRoute)
        /// The path is a native route's, the method is not (405 with `Allow`).
        case wrongMethod(allowed: String)
        case none
    }

    /// The native route `path` names on a route that serves them (`enabled`: the route's
    /// `native_routes`, else `NATIVE_ROUTES`).
    func match(path: String, method: String, enabled: Bool) -> Match {
        guard enabled, path.hasPrefix(configuration.prefix) else { return .none }
        let suffix = path.dropFirst(configuration.prefix.count)
        guard let route = NativeRoute.allCases.first(where: { $0.pathSuffix == suffix }) else { return .none }
        if route.method == method || (route.method == "GET" && method == "HEAD") { return .route(route) }
        return .wrongMethod(allowed: route.method)
    }

    /// How `exchange` on `route` is served: its filter, mediator and upstream.
    func mediation(for route: NativeRoute, exchange: HTTPExchange, requestID: String) -> (ExchangeMediation, UpstreamPool?)? {
        metrics.request(route)
        var mediation = ExchangeMediation()
        mediation.response = NativeResponseMediator(
            route: route, maxBytes: configuration.upstreamAnswerMaxBytes, metrics: metrics, logger: logger, requestID: requestID
        )
        switch route.shape {
        case .event, .result:
            let maxBytes = configuration.jsonMaxBytes
            if case .contentLength(let length) = exchange.framing, length > UInt64(maxBytes) {
                refuse(exchange, route, NativeAnswers.detail(413, "Request body too large"))
                return nil
            }
            guard exchange.hasRequestBody else {
                if case .failure(let refusal) = NativeContract.forwardedRequest(route, body: []) {
                    refuse(exchange, route, refusal)
                } else {
                    refuse(exchange, route, NativeAnswers.detail(422, "Request body required"))
                }
                return nil
            }
            let metrics = metrics
            // As the reference: a body not sent as JSON is read (up to the cap) and refused whole.
            let isJSON = NativeContract.isJSONMediaType(exchange.request.headers.first("Content-Type"))
            mediation.requestBody = JSONEventFilter(maxBytes: maxBytes) { body in
                let forwarded = isJSON ? NativeContract.forwardedRequest(route, body: body) : .failure(NativeContract.notJSON(body: body))
                if case .failure(let refusal) = forwarded { metrics.rejected(route, status: refusal.status) }
                return forwarded
            }
        case .document:
            guard exchange.hasRequestBody else {
                // No form at all: the fields the contract requires are missing.
                refuse(exchange, route, DocumentUploadFilter.notMultipart)
                return nil
            }
            switch DocumentUploadFilter.make(
                contentType: exchange.request.headers.first("Content-Type"), maxBytes: configuration.documentMaxBytes)
            {
            case .success(let filter):
                mediation.requestBody = filter
            case .failure(let refusal):
                refuse(exchange, route, refusal)
                return nil
            }
        case .feed:
            break
        }
        var pool: UpstreamPool?
        if let own = configuration.routeUpstreams[route] {
            pool = pools[route]
            let target = exchange.request.target
            let query = target.firstIndex(of: "?").map { String(target[$0...]) } ?? ""
            mediation.upstreamTarget = own.path + query
        }
        return (mediation, pool)
    }

    private func refuse(_ exchange: HTTPExchange, _ route: NativeRoute, _ answer: MediatedAnswer) {
        metrics.rejected(route, status: answer.status)
        exchange.respond(status: answer.status, headers: answer.headers, body: answer.body)
    }
}

@available(*, unavailable, message: "loop-owned")
extension NativeRouter: Sendable {}
