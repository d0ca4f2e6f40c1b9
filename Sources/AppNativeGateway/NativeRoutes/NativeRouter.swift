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
    /// Counted by the handler as it renders a decision, and by the filters and mediators.
    let metrics: NativeRouteMetrics
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
        return route.accepts(method) ? .route(route) : .wrongMethod(allowed: route.method)
    }

    /// How a native route's exchange is served; the handler renders it.
    enum Decision {
        /// Through the proxy with `mediation` (its body filter, answer mediator and target), on
        /// the route's own upstream when it has one (`nil`: the served route's upstream).
        case serve(ExchangeMediation, UpstreamPool?)
        /// Answered by the gateway before the upstream sees anything: a body the contract refuses
        /// from its head alone (too large, missing, not a form). Counted as a rejection.
        case refuse(CompleteResponse)
    }

    /// How `exchange` on `route` is served, judged from the route's contract and the request head.
    func mediation(for route: NativeRoute, exchange: HTTPExchange, requestID: String) -> Decision {
        var mediation = ExchangeMediation()
        mediation.response = NativeResponseMediator(
            route: route, maxBytes: configuration.upstreamAnswerMaxBytes, metrics: metrics, logger: logger, requestID: requestID
        )
        switch route.contract.request {
        case .json(let model, _):
            let maxBytes = configuration.jsonMaxBytes
            if case .contentLength(let length) = exchange.framing, length > UInt64(maxBytes) {
                return .refuse(.bodyTooLarge)
            }
            guard exchange.hasRequestBody else {
                if case .failure(let refusal) = NativeContract.forwardedRequest(model, body: []) { return .refuse(refusal) }
                return .refuse(.detail(422, "Request body required"))
            }
            let metrics = metrics
            // As the reference: a body not sent as JSON is read (up to the cap) and refused whole.
            let isJSON = NativeContract.isJSONMediaType(exchange.request.headers.first("Content-Type"))
            mediation.requestBody = JSONEventFilter(maxBytes: maxBytes) { body in
                let forwarded = isJSON ? NativeContract.forwardedRequest(model, body: body) : .failure(NativeContract.notJSON(body: body))
                if case .failure(let refusal) = forwarded { metrics.rejected(route, status: refusal.status) }
                return forwarded
            }
        case .document:
            switch DocumentUploadCheck.start(
                contentType: exchange.request.headers.first("Content-Type"), hasBody: exchange.hasRequestBody,
                maxFileBytes: configuration.documentMaxBytes)
            {
            case .success(let check): mediation.requestBody = DocumentUploadFilter(check: check)
            case .failure(let refusal): return .refuse(refusal)
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
        return .serve(mediation, pool)
    }
}

@available(*, unavailable, message: "loop-owned")
extension NativeRouter: Sendable {}
