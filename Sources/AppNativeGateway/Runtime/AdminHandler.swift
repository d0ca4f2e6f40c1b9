import AppNativeCore
import AppNativeHTTP
import AppNativeServer

/// The admin listener: liveness, readiness and Prometheus metrics. Bind it to an internal
/// address; it is unauthenticated by design.
final class AdminHandler: HTTPExchangeHandler {
    private let metrics: MetricsRegistry
    private let isReady: @Sendable () -> Bool

    init(metrics: MetricsRegistry, isReady: @escaping @Sendable () -> Bool) {
        self.metrics = metrics
        self.isReady = isReady
    }

    func serve(_ exchange: HTTPExchange) {
        var path = exchange.request.target
        if let query = path.firstIndex(of: "?") { path = String(path[..<query]) }
        guard exchange.request.method == "GET" || exchange.request.method == "HEAD" else {
            exchange.respondJSONError(status: 405, detail: "Method Not Allowed", headers: ["Allow": "GET, HEAD"])
            return
        }
        switch path {
        case "/healthz":
            exchange.respond(status: 200, headers: ["Content-Type": "application/json"], body: Array("{\"status\":\"ok\"}".utf8))
        case "/readyz":
            if isReady() {
                exchange.respond(status: 200, headers: ["Content-Type": "application/json"], body: Array("{\"status\":\"ready\"}".utf8))
            } else {
                exchange.respondJSONError(status: 503, detail: "Not ready")
            }
        case "/metrics":
            exchange.respond(
                status: 200,
                headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                body: Array(metrics.renderPrometheus().utf8)
            )
        default:
            exchange.respondJSONError(status: 404, detail: "Not Found")
        }
    }

    func exchangeDidEnd(_ exchange: HTTPExchange) {}
}
