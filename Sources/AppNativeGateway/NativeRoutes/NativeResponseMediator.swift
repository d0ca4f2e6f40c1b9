import AppNativeCore
import AppNativeHTTP
import AppNativeJSON
import AppNativeProxy
import AppNativeRoutes

/// Shapes the upstream's answer to a native route into what the app expects (contract/routes.md §1, §3):
/// events become `{"ok":true}` (204 for live activities), feeds and results are validated by the
/// contract models and re-serialized by them, upstream 4xx pass through, everything else is 502.
final class NativeResponseMediator: ResponseMediator {
    private let route: NativeRoute
    private let maxBytes: Int
    private let metrics: NativeRouteMetrics
    private let logger: Logger
    private let requestID: String

    init(route: NativeRoute, maxBytes: Int, metrics: NativeRouteMetrics, logger: Logger, requestID: String) {
        self.route = route
        self.maxBytes = maxBytes
        self.metrics = metrics
        self.logger = logger
        self.requestID = requestID
    }

    var maxUpstreamBodyBytes: Int { maxBytes }

    func answer(status: Int, headers: HTTPHeaders, body: [UInt8]) -> CompleteResponse {
        switch status {
        case 200..<300:
            return success(body: status == 204 ? [] : body, headers: headers)
        case 400..<500:
            return Self.passThrough(status: status, headers: headers, body: body)
        default:
            metrics.upstreamFailure(route, cause: "status")
            logger.warning("native route: upstream answered with an error", [
                "request.id": requestID, "native.route": route.rawValue, "upstream.status": String(status),
            ])
            return Self.upstreamFailed
        }
    }

    private func success(body: [UInt8], headers: HTTPHeaders) -> CompleteResponse {
        switch route.contract.answer {
        case .ok:
            return .ok
        case .noContent:
            return .noContent
        case .documentReceipt:
            return .json(200, NativeContract.documentAnswer(upstreamBody: body, contentType: headers.first("Content-Type")))
        case .feed(_, let validate):
            guard let feed = NativeContract.feed(upstreamBody: body, validate: validate) else {
                return invalid("the upstream's feed is not a valid \(route.rawValue) feed")
            }
            for dropped in feed.dropped {
                metrics.dropped(route)
                logger.warning("native route: invalid entry dropped from a feed", [
                    "request.id": requestID, "native.route": route.rawValue, "entry.id": dropped.id, "error.path": dropped.path,
                    "error": dropped.reason,
                ])
            }
            return .json(200, feed.document)
        case .result(_, _, let empty, let validate):
            switch NativeContract.result(upstreamBody: body, empty: empty, validate: validate) {
            case .success(let document):
                return .json(200, document)
            case .failure(let problem):
                return invalid(problem.description)
            }
        }
    }

    private func invalid(_ reason: String) -> CompleteResponse {
        metrics.upstreamFailure(route, cause: "invalid_answer")
        logger.warning("native route: upstream answer refused", [
            "request.id": requestID, "native.route": route.rawValue, "error": reason,
        ])
        return .detail(502, .string("Upstream sent an invalid \(route.rawValue) answer"))
    }

    /// An upstream 4xx reaches the app as the upstream sent it (its body and content type).
    private static func passThrough(status: Int, headers: HTTPHeaders, body: [UInt8]) -> CompleteResponse {
        var answer = CompleteResponse(status: status, body: body)
        answer.headers.add(name: "Content-Type", value: headers.first("Content-Type") ?? "application/json")
        return answer
    }

    /// Anything but 2xx or 4xx from the upstream: the app gets 502 and the log says why.
    private static let upstreamFailed = CompleteResponse.detail(502, "Upstream error")
}

@available(*, unavailable, message: "loop-owned")
extension NativeResponseMediator: Sendable {}

/// Metrics of the native routes; labels are route names and fixed causes only.
final class NativeRouteMetrics: Sendable {
    private let requests: [NativeRoute: Counter]
    private let droppedEntries: [NativeRoute: Counter]
    private let registry: MetricsRegistry

    init(registry: MetricsRegistry) {
        self.registry = registry
        var requests = [NativeRoute: Counter](), dropped = [NativeRoute: Counter]()
        for route in NativeRoute.allCases {
            requests[route] = registry.counter(MetricCatalogue.nativeRequests, labels: ["route": route.rawValue])
            dropped[route] = registry.counter(MetricCatalogue.nativeFeedEntriesDropped, labels: ["route": route.rawValue])
        }
        self.requests = requests
        droppedEntries = dropped
    }

    func request(_ route: NativeRoute) { requests[route]?.increment() }
    func dropped(_ route: NativeRoute) { droppedEntries[route]?.increment() }

    func rejected(_ route: NativeRoute, status: Int) {
        registry.counter(MetricCatalogue.nativeRejections, labels: ["route": route.rawValue, "status": String(status)])
            .increment()
    }

    func upstreamFailure(_ route: NativeRoute, cause: String) {
        registry.counter(MetricCatalogue.nativeUpstreamFailures, labels: ["route": route.rawValue, "cause": cause])
            .increment()
    }
}
