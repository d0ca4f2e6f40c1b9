import AppNativeAPNs
import AppNativeClient
import AppNativeCore
import AppNativeCrypto
import AppNativeJSON

/// The push API for upstreams (docs/operations.md, "Push API"): `POST /push/<kind>` on the admin listener with one
/// of the `PUSH_API_KEYS` as `Authorization: Bearer <key>`, a JSON body naming up to
/// `PUSH_MAX_BATCH` device tokens, and one result per token in the answer. Tokens Apple reported
/// permanently invalid are posted to `DEAD_TOKEN_WEBHOOK_URL` before the answer is sent.
///
/// Independent of the server: `handle` takes the request's parts and returns the response, so
/// it is tested without a listener. No per-token state outlives the request.
final class PushAPI: Sendable {
    /// Request bodies are capped before decoding: a full batch of 512-digit tokens plus a
    /// 4 KiB payload fits well within this.
    static let maxBodyBytes = 8 << 20

    /// A response to write.
    struct Response: Sendable {
        var status: Int
        var body: JSONObject
    }

    private let keyDigests: [[UInt8]]
    private let maxBatch: Int
    private let webhookURL: String?
    private let sender: APNsSender
    private let webhook: any HTTPFetching
    private let logger: Logger
    private let requests: [String: Counter]
    private let webhookOutcomes: [String: Counter]

    init(
        configuration: PushAPIConfiguration,
        sender: APNsSender,
        webhook: any HTTPFetching = CurlHTTPClient.shared,
        logger: Logger,
        metrics: MetricsRegistry
    ) {
        keyDigests = configuration.apiKeys.map { SHA256.hash($0.revealed) }
        maxBatch = configuration.maxBatch
        webhookURL = configuration.deadTokenWebhookURL
        self.sender = sender
        self.webhook = webhook
        self.logger = logger
        var requests: [String: Counter] = [:]
        for status in ["200", "401", "404", "405", "413", "422", "503"] {
            requests[status] = metrics.counter("push_api.requests", labels: ["status": status], help: "Push API requests")
        }
        self.requests = requests
        webhookOutcomes = Dictionary(
            uniqueKeysWithValues: ["delivered", "failed"].map {
                ($0, metrics.counter("push_api.dead_token_webhook", labels: ["outcome": $0], help: "Dead-token webhook calls"))
            })
    }

    /// Whether `authorization` carries one of the API keys. The presented key and every
    /// configured one are compared as SHA-256 digests in constant time, all of them every time,
    /// so neither a key's length nor its position leaks through timing.
    func isAuthorized(_ authorization: String?) -> Bool {
        guard let authorization, authorization.count > 7, authorization.prefix(7).lowercased() == "bearer " else {
            return false
        }
        let presented = SHA256.hash(String(authorization.dropFirst(7)).trimmingASCIISpaces)
        var matched = false
        for digest in keyDigests where ConstantTime.equals(presented, digest) { matched = true }
        return matched
    }

    /// The answer to `method path` (`path` below the listener root) with `authorization` and `body`.
    func handle(method: String, path: String, authorization: String?, body: [UInt8]) async -> Response {
        let response = await respond(method: method, path: path, authorization: authorization, body: body)
        requests[String(response.status)]?.increment()
        return response
    }

    private func respond(method: String, path: String, authorization: String?, body: [UInt8]) async -> Response {
        guard isAuthorized(authorization) else {
            return Self.error(401, "unauthorized", "a valid push API key is required (Authorization: Bearer …)")
        }
        let kind = String(path.dropFirst("/push/".count))
        guard path.hasPrefix("/push/"), PushRequest.kinds.contains(kind) else {
            return Self.error(404, "not_found", "unknown push kind; one of " + PushRequest.kinds.joined(separator: ", "))
        }
        guard method == "POST" else { return Self.error(405, "method_not_allowed", "use POST") }
        guard body.count <= Self.maxBodyBytes else {
            return Self.error(413, "payload_too_large", "request body over \(Self.maxBodyBytes) bytes")
        }
        let request: PushRequest
        switch PushRequest.decode(kind: kind, body: body, maxBatch: maxBatch) {
        case .success(let decoded):
            request = decoded
        case .failure(let failure):
            var response = Self.error(422, "invalid_request", failure.errors.first.map { "\($0.field) \($0.reason)" } ?? "")
            response.body["fields"] = .array(
                failure.errors.map { .object(["field": .string($0.field), "reason": .string($0.reason)]) })
            return response
        }
        let results: [APNsResult]
        do {
            results = try await sender.send(request.notification, to: request.tokens)
        } catch {
            logger.error("push API: APNs unavailable", ["apns.error": error.code.description])
            return Self.error(503, "apns_unavailable", error.reason)
        }
        var body = JSONObject()
        body["results"] = .array(results.map { .object($0.json) })
        body["sent"] = .number(JSONNumber(results.filter(\.sent).count))
        body["not_sent"] = .number(JSONNumber(results.filter { !$0.sent }.count))
        let dead = results.filter(\.isPermanentlyInvalidToken)
        if !dead.isEmpty, let webhookURL {
            body["dead_tokens_reported"] = .bool(await report(dead, kind: kind, to: webhookURL))
        }
        return Response(status: 200, body: body)
    }

    /// Posts `{"kind":…, "tokens":[{"token","reason","timestamp"?}…]}` to the webhook; true on 2xx.
    private func report(_ dead: [APNsResult], kind: String, to url: String) async -> Bool {
        let tokens: [JSONValue] = dead.map { result in
            var entry: JSONObject = ["token": .string(result.deviceToken), "reason": .string(result.reason?.name ?? "")]
            if let timestamp = result.unregisteredAt { entry["timestamp"] = .number(JSONNumber(timestamp)) }
            return .object(entry)
        }
        var request = HTTPRequest(
            url: url, method: "POST", headers: [HTTPHeaderField(name: "Content-Type", value: "application/json")],
            body: JSONSerializer.serialize(.object(["kind": .string(kind), "tokens": .array(tokens)])),
            timeout: .seconds(5), maxResponseBytes: 64 * 1024)
        request.allowsCleartextOnLoopback = true
        do {
            let response = try await webhook.send(request)
            let delivered = (200..<300).contains(response.status)
            webhookOutcomes[delivered ? "delivered" : "failed"]?.increment()
            if !delivered { logger.warning("dead-token webhook refused", ["http.status": String(response.status)]) }
            return delivered
        } catch {
            webhookOutcomes["failed"]?.increment()
            logger.warning("dead-token webhook failed", ["error": error.code.description])
            return false
        }
    }

    static func error(_ status: Int, _ code: String, _ detail: String) -> Response {
        Response(status: status, body: ["error": .string(code), "detail": .string(detail)])
    }
}

extension String {
    fileprivate var trimmingASCIISpaces: String {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
