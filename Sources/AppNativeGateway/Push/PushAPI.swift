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
/// A request is judged in two steps, both independent of the server (tested without a
/// listener): `admit` decides on the head alone (key, kind, method, declared length), so a
/// refused request never has a body byte read; only an `Admitted` request has its body
/// collected (`PushRequestBody`, capped) and handed to `handle`. No per-token state outlives the
/// request.
final class PushAPI: Sendable {
    /// Request bodies are capped before decoding: a full batch of 512-digit tokens plus a
    /// 4 KiB payload fits well within this.
    static let maxBodyBytes = 8 << 20

    /// A response to write.
    struct Response: Sendable {
        var status: Int
        var body: JSONObject
    }

    /// A request whose head passed every check. Only `admit` makes one, so no body reaches
    /// `handle` without a valid key.
    struct Admitted: Sendable {
        /// The notification kind (`silent`, `alert`, `live-activity/update`, …).
        let kind: PushKind

        fileprivate init(kind: PushKind) { self.kind = kind }
    }

    /// What a request's head decides, before any byte of its body is read.
    enum Admission: Sendable {
        /// Answer with this now; the body stays unread (the server then closes the connection).
        case refused(Response)
        /// Collect the body (`PushRequestBody`) and hand it to `handle(_:body:)`.
        case admitted(Admitted)
    }

    /// The SHA-256 digests of the API keys in force (`PUSH_API_KEYS_FILE` is re-read on `SIGHUP`).
    let keyDigests: Reloadable<[[UInt8]]>
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
        keyDigests = Reloadable(Self.digests(of: configuration.apiKeys))
        maxBatch = configuration.maxBatch
        webhookURL = configuration.deadTokenWebhookURL
        self.sender = sender
        self.webhook = webhook
        self.logger = logger
        var requests: [String: Counter] = [:]
        for status in ["200", "401", "404", "405", "413", "422", "503"] {
            requests[status] = metrics.counter(MetricCatalogue.pushAPIRequests, labels: ["status": status])
        }
        self.requests = requests
        webhookOutcomes = Dictionary(
            uniqueKeysWithValues: ["delivered", "failed"].map {
                ($0, metrics.counter(MetricCatalogue.pushAPIDeadTokenWebhook, labels: ["outcome": $0]))
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
        for digest in keyDigests.value where ConstantTime.equals(presented, digest) { matched = true }
        return matched
    }

    /// What a presented key is compared with: each key's SHA-256 digest.
    static func digests(of keys: [Secret<String>]) -> [[UInt8]] {
        keys.map { SHA256.hash($0.revealed) }
    }

    /// Judges a request on its head: `method path` (`path` below the listener root, without
    /// the query), its `Authorization` field and the body length it declares (`nil` when
    /// chunked or absent). In this order: 401 without a valid key (so a caller without one
    /// learns nothing else), 404 for an unknown kind, 405 for another method than POST, 413
    /// for a declared length over `maxBodyBytes`.
    func admit(method: String, path: String, authorization: String?, declaredBodyBytes: UInt64?) -> Admission {
        guard isAuthorized(authorization) else {
            return .refused(counted(Self.error(401, "unauthorized", "a valid push API key is required (Authorization: Bearer …)")))
        }
        guard path.hasPrefix("/push/"), let kind = PushKind(rawValue: String(path.dropFirst("/push/".count))) else {
            return .refused(counted(Self.error(404, "not_found", "unknown push kind; one of " + PushKind.paths)))
        }
        guard method == "POST" else { return .refused(counted(Self.error(405, "method_not_allowed", "use POST"))) }
        if let declaredBodyBytes, declaredBodyBytes > UInt64(Self.maxBodyBytes) {
            return .refused(bodyTooLarge())
        }
        return .admitted(Admitted(kind: kind))
    }

    /// The answer to a body that passed `maxBodyBytes` while it arrived (a chunked one).
    func bodyTooLarge() -> Response {
        counted(Self.error(413, "payload_too_large", "request body over \(Self.maxBodyBytes) bytes"))
    }

    /// The answer to an admitted request with its whole `body`: 422 when it does not decode,
    /// 503 when APNs cannot be reached, else 200 with one result per token.
    func handle(_ request: Admitted, body: [UInt8]) async -> Response {
        guard body.count <= Self.maxBodyBytes else { return bodyTooLarge() }
        return counted(await respond(to: request, body: body))
    }

    private func counted(_ response: Response) -> Response {
        requests[String(response.status)]?.increment()
        return response
    }

    private func respond(to admitted: Admitted, body: [UInt8]) async -> Response {
        let kind = admitted.kind
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
    private func report(_ dead: [APNsResult], kind: PushKind, to url: String) async -> Bool {
        let tokens: [JSONValue] = dead.map { result in
            var entry: JSONObject = ["token": .string(result.deviceToken), "reason": .string(result.reason?.name ?? "")]
            if let timestamp = result.unregisteredAt { entry["timestamp"] = .number(JSONNumber(timestamp)) }
            return .object(entry)
        }
        var request = HTTPRequest(
            url: url, method: "POST", headers: [HTTPHeaderField(name: "Content-Type", value: "application/json")],
            body: JSONSerializer.serialize(.object(["kind": .string(kind.rawValue), "tokens": .array(tokens)])),
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
