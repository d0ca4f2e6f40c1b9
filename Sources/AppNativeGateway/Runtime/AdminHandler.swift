import AppNativeCore
import AppNativeHTTP
import AppNativeJSON
import AppNativeServer

/// The admin listener: liveness, readiness and Prometheus metrics (unauthenticated by design:
/// bind it to an internal address), and the push API under `/push/` when `PUSH_API_KEYS` is set
/// (authenticated by its own API keys).
final class AdminHandler: HTTPExchangeHandler {
    private let metrics: MetricsRegistry
    private let isReady: @Sendable () -> Bool
    private let push: PushAPI?
    /// Push requests waiting for their results.
    private let pushes: OffLoopWait<Void>

    /// Whether `/healthz`, `/readyz` and `/metrics` are served (not on a push-only listener).
    private let servesAdminRoutes: Bool

    init(loop: EventLoop, metrics: MetricsRegistry, isReady: @escaping @Sendable () -> Bool, push: PushAPI? = nil, servesAdminRoutes: Bool = true) {
        pushes = OffLoopWait(loop: loop)
        self.metrics = metrics
        self.isReady = isReady
        self.push = push
        self.servesAdminRoutes = servesAdminRoutes
    }

    func serve(_ exchange: HTTPExchange) {
        var path = exchange.request.target
        if let query = path.firstIndex(of: "?") { path = String(path[..<query]) }
        if let push, path.hasPrefix("/push/") {
            servePush(exchange, path: path, api: push)
            return
        }
        guard servesAdminRoutes else {
            exchange.respondJSONError(status: 404, detail: "Not Found")
            return
        }
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

    /// Reads the body (capped: bytes past the cap are drained, not kept), hands it to the push
    /// API off the loop, and answers on the loop when the results are in.
    private func servePush(_ exchange: HTTPExchange, path: String, api: PushAPI) {
        let method = exchange.request.method
        let authorization = exchange.request.headers.first("Authorization")
        var body: [UInt8] = []
        var isOverLimit = false
        let run: () -> Void = { [weak self] in
            let received = isOverLimit ? [UInt8](repeating: 0, count: PushAPI.maxBodyBytes + 1) : body
            self?.pushes.wait(exchange, with: (), for: {
                await api.handle(method: method, path: path, authorization: authorization, body: received)
            }) { [weak self] exchange, _, response in
                self?.finishPush(exchange, response)
            }
        }
        guard exchange.hasRequestBody else {
            run()
            return
        }
        exchange.readBody(onChunk: { bytes in
            guard !isOverLimit else { return }
            if body.count + bytes.count > PushAPI.maxBodyBytes {
                isOverLimit = true
                body = []
            } else {
                body.append(contentsOf: bytes)
            }
        }, onEnd: { _ in run() })
    }

    private func finishPush(_ exchange: HTTPExchange, _ response: PushAPI.Response) {
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if response.status == 401 { headers.add(name: "WWW-Authenticate", value: "Bearer") }
        exchange.respond(status: response.status, headers: headers, body: JSONSerializer.serialize(.object(response.body)))
    }

    func exchangeDidEnd(_ exchange: HTTPExchange) {}
}
