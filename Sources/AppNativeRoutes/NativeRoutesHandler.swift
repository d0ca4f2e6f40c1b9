public import AppNativeCore
public import AppNativeServer
public import AppNativeHTTP
import AppNativeJSON
import AppNativeModels

/// The ten native routes (contract/routes.md) served by a Swift backend on its own ``HTTPServer``: each
/// request is authenticated, size-capped, validated by the models, handed to the host's
/// callback off the event loop, and answered in the contract's exact shape.
///
/// Per request, in this order (contract/routes.md §0):
/// 1. the path picks the route: `{prefix}/<route>`; anything else under the prefix, or a route
///    whose callback is `nil`, is 404 `{"detail":"Not Found"}`; a wrong method is 405 with `Allow`;
/// 2. the authentication hook runs before a byte of the body is read (a refusal is sent as the
///    hook built it);
/// 3. the body is capped (413) and validated (422 listing every error), or, for documents,
///    parsed while it streams;
/// 4. the callback runs in a `Task`; its value is shaped per contract/routes.md §3, a thrown
///    ``NativeHTTPError`` passes through as `{"detail": …}`, anything else is 500
///    `{"detail":"Internal Server Error"}` with the error only in the log.
///
/// One instance per event loop (build it in `HTTPServer`'s handler factory); it is loop-owned
/// and not `Sendable`. Requests outside the prefix go to `fallback`, or are 404 without one.
public final class NativeRoutesHandler<User: Sendable>: HTTPExchangeHandler {
    private let prefix: String
    private let authentication: NativeAuthentication<User>
    private let callbacks: NativeRouteCallbacks<User>
    private let limits: NativeRouteLimits
    private let logger: Logger
    private let fallback: (any HTTPExchangeHandler)?

    /// Routes guarded by `authentication`.
    ///
    /// - Parameters:
    ///   - prefix: the mount path (`/api` by default, the app's default); `""` mounts at the root.
    ///     It starts with `/` and does not end with one.
    ///   - authentication: the mandatory hook, or the explicit
    ///     ``NativeAuthentication/insecureNoAuthentication``.
    ///   - callbacks: the host's callbacks; a `nil` callback leaves its route unmounted (404).
    ///   - limits: body caps.
    ///   - logger: where unexpected callback errors are logged (`native.route`, `error`).
    ///   - fallback: serves every request outside `prefix` (the host's other routes).
    public init(
        prefix: String = "/api",
        authentication: NativeAuthentication<User>,
        callbacks: NativeRouteCallbacks<User>,
        limits: NativeRouteLimits = NativeRouteLimits(),
        logger: Logger = Logger(),
        fallback: (any HTTPExchangeHandler)? = nil
    ) {
        precondition(prefix.isEmpty || (prefix.hasPrefix("/") && !prefix.hasSuffix("/")), "prefix: \"\" or \"/path\" without a trailing slash")
        self.prefix = prefix
        self.authentication = authentication
        self.callbacks = callbacks
        self.limits = limits
        self.logger = logger
        self.fallback = fallback
    }

    /// Routes guarded by the hook `authenticate` (see ``init(prefix:authentication:callbacks:limits:logger:fallback:)``).
    public convenience init(
        prefix: String = "/api",
        authenticate: @escaping @Sendable (HTTPRequestHead) async -> NativeAuthOutcome<User>,
        callbacks: NativeRouteCallbacks<User>,
        limits: NativeRouteLimits = NativeRouteLimits(),
        logger: Logger = Logger(),
        fallback: (any HTTPExchangeHandler)? = nil
    ) {
        self.init(prefix: prefix, authentication: .hook(authenticate), callbacks: callbacks, limits: limits, logger: logger, fallback: fallback)
    }

    // MARK: HTTPExchangeHandler

    public func serve(_ exchange: HTTPExchange) {
        let target = exchange.request.target
        let path = target.firstIndex(of: "?").map { target[..<$0] } ?? target[...]
        guard let suffix = routeSuffix(of: path) else {
            if let fallback { fallback.serve(exchange) } else { send(.notFound, to: exchange) }
            return
        }
        guard let route = NativeRoute(rawValue: String(suffix)), route.isMounted(in: callbacks) else {
            send(.notFound, to: exchange)
            return
        }
        guard route.accepts(exchange.request.method) else {
            send(.methodNotAllowed(allow: route.method), to: exchange)
            return
        }
        switch authentication.mode {
        case .insecure:
            authenticated(route, exchange, user: nil)
        case .hook(let authenticate):
            let bound = LoopBound((self, exchange), on: exchange.loop)
            let head = exchange.request
            let loop = exchange.loop
            Task {
                let outcome = await authenticate(head)
                loop.execute {
                    let (handler, exchange) = bound.value
                    guard !exchange.isAborted else { return }
                    switch outcome {
                    case .authenticated(let user): handler.authenticated(route, exchange, user: user)
                    case .rejected(let rejection): handler.send(.json(rejection.status, rejection.body, headers: rejection.headers), to: exchange)
                    }
                }
            }
        }
    }

    public func exchangeDidEnd(_ exchange: HTTPExchange) {
        guard let fallback else { return }
        let target = exchange.request.target
        let path = target.firstIndex(of: "?").map { target[..<$0] } ?? target[...]
        if routeSuffix(of: path) == nil { fallback.exchangeDidEnd(exchange) }
    }

    /// The part after `{prefix}/`, or `nil` when `path` is outside the prefix.
    private func routeSuffix(of path: Substring) -> Substring? {
        guard path.hasPrefix(prefix) else { return nil }
        let rest = path.dropFirst(prefix.count)
        guard rest.first == "/" else { return nil }
        return rest.dropFirst()
    }

    // MARK: After authentication

    private func authenticated(_ route: NativeRoute, _ exchange: HTTPExchange, user: User?) {
        let head = exchange.request
        switch route {
        case .widgets, .approvals:
            let target = head.target
            let query = target.firstIndex(of: "?").map { target[target.index(after: $0)...] } ?? ""
            let context = NativeRequestContext(deviceID: QueryParameters.value(of: "device_id", in: query), user: user, request: head)
            let callbacks = callbacks
            call(route, exchange) {
                if route == .widgets, let widgets = callbacks.widgets {
                    return .json(200, try await widgets(context).jsonValue(.response))
                } else if let approvals = callbacks.approvals {
                    return .json(200, try await approvals(context).jsonValue(.response))
                }
                preconditionFailure("an unmounted feed was served")
            }
        case .documents:
            readDocument(exchange, user: user)
        default:
            readJSON(route, exchange, user: user)
        }
    }

    /// Reads a JSON body under the cap, then validates it and calls back.
    private func readJSON(_ route: NativeRoute, _ exchange: HTTPExchange, user: User?) {
        let maxBytes = limits.maxJSONBodyBytes
        if case .contentLength(let length) = exchange.framing, length > UInt64(maxBytes) {
            send(.bodyTooLarge, to: exchange)
            return
        }
        guard exchange.hasRequestBody else {
            decodeAndCall(route, exchange, user: user, body: [])
            return
        }
        var body: [UInt8] = []
        var isRefused = false
        exchange.readBody(onChunk: { [unowned exchange] chunk in
            guard !isRefused else { return }
            guard body.count + chunk.count <= maxBytes else {
                isRefused = true
                body = []
                self.send(.bodyTooLarge, to: exchange)
                return
            }
            body.append(contentsOf: chunk)
        }, onEnd: { [unowned exchange] _ in
            guard !isRefused else { return }
            self.decodeAndCall(route, exchange, user: user, body: body)
        })
    }

    private func decodeAndCall(_ route: NativeRoute, _ exchange: HTTPExchange, user: User?, body: [UInt8]) {
        let decoder = ModelDecoder(maxBodyBytes: limits.maxJSONBodyBytes)
        let head = exchange.request
        let callbacks = callbacks
        func makeContext(_ deviceID: String) -> NativeRequestContext<User> {
            NativeRequestContext(deviceID: deviceID, user: user, request: head)
        }
        do throws(ModelError) {
            switch route {
            case .devices:
                let model = try decoder.decode(DeviceRegistration.self, from: body)
                let context = makeContext(model.deviceID)
                guard let callback = callbacks.registerDevice else { preconditionFailure("an unmounted route was served") }
                call(route, exchange) {
                    try await callback(model, context)
                    return .ok
                }
            case .locations:
                let model = try decoder.decode(LocationUpdate.self, from: body)
                let context = makeContext(model.deviceID)
                guard let callback = callbacks.updateLocation else { preconditionFailure("an unmounted route was served") }
                call(route, exchange) {
                    try await callback(model, context)
                    return .ok
                }
            case .notificationActions:
                let model = try decoder.decode(NotificationActionReceived.self, from: body)
                let context = makeContext(model.deviceID)
                guard let callback = callbacks.notificationAction else { preconditionFailure("an unmounted route was served") }
                call(route, exchange) {
                    try await callback(model, context)
                    return .ok
                }
            case .widgetActions:
                let model = try decoder.decode(WidgetActionReceived.self, from: body)
                let context = makeContext(model.deviceID)
                guard let callback = callbacks.widgetAction else { preconditionFailure("an unmounted route was served") }
                call(route, exchange) {
                    let result = try await callback(model, context) ?? WidgetActionResult()
                    return .json(200, result.jsonValue(.response))
                }
            case .widgetOptions:
                let model = try decoder.decode(WidgetOptionsRequest.self, from: body)
                let context = makeContext(model.deviceID)
                guard let callback = callbacks.widgetOptions else { preconditionFailure("an unmounted route was served") }
                call(route, exchange) {
                    .json(200, try await callback(model, context).jsonValue(.response))
                }
            case .approvalDecisions:
                let model = try decoder.decode(ApprovalDecisionReceived.self, from: body)
                let context = makeContext(model.deviceID)
                guard let callback = callbacks.approvalDecision else { preconditionFailure("an unmounted route was served") }
                call(route, exchange) {
                    let result = try await callback(model, context) ?? ApprovalDecisionResult()
                    return .json(200, result.jsonValue(.response))
                }
            case .liveActivities:
                let model = try decoder.decode(LiveActivityTokenReceived.self, from: body)
                let context = makeContext(model.deviceID)
                guard let callback = callbacks.liveActivity else { preconditionFailure("an unmounted route was served") }
                call(route, exchange) {
                    try await callback(model, context)
                    return .noContent
                }
            case .documents, .widgets, .approvals:
                preconditionFailure("\(route) has no JSON body")
            }
        } catch {
            send(.json(error.httpStatus, error.responseBytes()), to: exchange)
        }
    }

    /// Streams a multipart upload through a ``DocumentCollector``, then calls back.
    private func readDocument(_ exchange: HTTPExchange, user: User?) {
        guard exchange.hasRequestBody,
            let collector = DocumentCollector(contentType: exchange.request.headers.first("Content-Type"), maxBytes: limits.maxDocumentBytes)
        else {
            send(DocumentCollector.notMultipart(), to: exchange)
            return
        }
        var isRefused = false
        exchange.readBody(onChunk: { [unowned exchange] chunk in
            guard !isRefused else { return }
            if let refusal = collector.consume(chunk) {
                isRefused = true
                self.send(refusal, to: exchange)
            }
        }, onEnd: { [unowned exchange] _ in
            guard !isRefused else { return }
            switch collector.finish() {
            case .failure(let refusal):
                self.send(refusal.answer, to: exchange)
            case .success(let upload):
                guard let callback = self.callbacks.receiveDocument else { preconditionFailure("an unmounted route was served") }
                let context = NativeRequestContext(deviceID: upload.metadata.deviceID, user: user, request: exchange.request)
                self.call(.documents, exchange) {
                    .document(reference: try await callback(upload, context))
                }
            }
        })
    }

    // MARK: Calling back

    /// Runs `work` (the callback and the shaping of its value) off the loop and answers on it.
    private func call(_ route: NativeRoute, _ exchange: HTTPExchange, _ work: @escaping @Sendable () async throws -> NativeAnswer) {
        let bound = LoopBound((self, exchange), on: exchange.loop)
        let loop = exchange.loop
        let logger = logger
        let method = exchange.request.method
        Task {
            let answer: NativeAnswer
            do {
                answer = try await work()
            } catch let error as NativeHTTPError {
                answer = .detail(error.status, error.detail, headers: error.headers)
            } catch {
                logger.error(
                    "native route callback failed",
                    ["native.route": route.rawValue, "http.method": method, "error": String(describing: error)])
                answer = .internalError
            }
            loop.execute {
                let (handler, exchange) = bound.value
                handler.send(answer, to: exchange)
            }
        }
    }

    private func send(_ answer: NativeAnswer, to exchange: HTTPExchange) {
        guard !exchange.isAborted, !exchange.hasResponseStartedPublic else { return }
        exchange.respond(status: answer.status, headers: answer.headers, body: answer.body)
    }
}

@available(*, unavailable, message: "loop-owned: build one per event loop")
extension NativeRoutesHandler: Sendable {}
