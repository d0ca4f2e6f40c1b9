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

    /// Judges the request on its head first (`PushAPI.admit`): a refusal (401, 404, 405, 413 for
    /// a declared length over the cap) is answered before any body byte is read, and the server
    /// then closes the connection (docs/architecture.md, "How a client connection ends"). An
    /// admitted request's body is collected up to the cap (`PushRequestBody`: a chunked body is
    /// answered 413 the moment it passes the cap, and the rest is dropped), handed to the push
    /// API off the loop, and answered on the loop when the results are in.
    private func servePush(_ exchange: HTTPExchange, path: String, api: PushAPI) {
        var declaredBytes: UInt64?
        if case .contentLength(let length) = exchange.framing { declaredBytes = length }
        let admitted: PushAPI.Admitted
        switch api.admit(
            method: exchange.request.method, path: path, authorization: exchange.request.headers.first("Authorization"),
            declaredBodyBytes: declaredBytes)
        {
        case .refused(let response):
            finishPush(exchange, response)
            return
        case .admitted(let request):
            admitted = request
        }
        let run: ([UInt8]) -> Void = { [weak self] body in
            self?.pushes.wait(exchange, with: (), for: { await api.handle(admitted, body: body) }) { [weak self] exchange, _, response in
                self?.finishPush(exchange, response)
            }
        }
        guard exchange.hasRequestBody else {
            run([])
            return
        }
        var body = PushRequestBody(limit: PushAPI.maxBodyBytes, declaredBytes: declaredBytes)
        exchange.readBody(onChunk: { [weak self] chunk in
            if body.receive(chunk) == .passedLimit { self?.finishPush(exchange, api.bodyTooLarge()) }
        }, onEnd: { _ in
            if case .complete(let bytes) = body.finish() { run(bytes) }
        })
    }

    private func finishPush(_ exchange: HTTPExchange, _ response: PushAPI.Response) {
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if response.status == 401 { headers.add(name: "WWW-Authenticate", value: "Bearer") }
        exchange.respond(status: response.status, headers: headers, body: JSONSerializer.serialize(.object(response.body)))
    }

    func exchangeDidEnd(_ exchange: HTTPExchange) {}
}
