public import AppNativeCore
public import AppNativeServer
public import AppNativeHTTP

/// ``NativeRoutes`` served by the project's own ``HTTPServer``: the adapter from an
/// `HTTPExchange` (head, streamed body, response) to ``NativeRoutes/respond(to:)``.
///
/// Requests outside the prefix go to `fallback`, or are 404 without one. Every other request is
/// answered by the routes in a task; its body is read (with backpressure) only when the routes
/// ask for it, after authentication.
///
/// One instance per event loop (build it in `HTTPServer`'s handler factory); it is loop-owned
/// and not `Sendable`. The ``NativeRoutes`` value it serves can be shared by every loop.
public final class NativeRoutesHandler<User: Sendable>: HTTPExchangeHandler {
    /// The routes this handler serves.
    public let routes: NativeRoutes<User>
    private let fallback: (any HTTPExchangeHandler)?

    /// Serves `routes`; requests outside their prefix go to `fallback`.
    ///
    /// - Parameters:
    ///   - routes: the routes, shared by every loop.
    ///   - fallback: serves every request outside the prefix (the host's other routes).
    public init(routes: NativeRoutes<User>, fallback: (any HTTPExchangeHandler)? = nil) {
        self.routes = routes
        self.fallback = fallback
    }

    /// Routes guarded by `authentication` (see ``NativeRoutes/init(prefix:authentication:callbacks:limits:logger:)``).
    ///
    /// - Parameters:
    ///   - prefix: the mount path (`/api` by default); `""` mounts at the root.
    ///   - authentication: the mandatory hook, or the explicit
    ///     ``NativeAuthentication/insecureNoAuthentication``.
    ///   - callbacks: the host's callbacks; a `nil` callback leaves its route unmounted (404).
    ///   - limits: body caps.
    ///   - logger: where unexpected callback errors are logged (`native.route`, `error`).
    ///   - fallback: serves every request outside `prefix` (the host's other routes).
    public convenience init(
        prefix: String = "/api",
        authentication: NativeAuthentication<User>,
        callbacks: NativeRouteCallbacks<User>,
        limits: NativeRouteLimits = NativeRouteLimits(),
        logger: Logger = Logger(),
        fallback: (any HTTPExchangeHandler)? = nil
    ) {
        self.init(
            routes: NativeRoutes(prefix: prefix, authentication: authentication, callbacks: callbacks, limits: limits, logger: logger),
            fallback: fallback)
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
        guard routes.handles(target: exchange.request.target) else {
            if let fallback {
                fallback.serve(exchange)
            } else {
                let answer = CompleteResponse.notFound
                exchange.respond(status: answer.status, headers: answer.headers, body: answer.body)
            }
            return
        }
        let body = ExchangeBodyStream(exchange)
        let request = NativeRouteRequest(head: exchange.request, body: body)
        let routes = routes
        let bound = LoopBound(exchange, on: exchange.loop)
        Task {
            // A body that failed means the client is gone: there is no one to answer.
            guard let response = try? await routes.respond(to: request) else { return }
            bound.loop.execute {
                let exchange = bound.value
                body.close()
                guard !exchange.isAborted, !exchange.hasResponseStartedPublic else { return }
                exchange.respond(status: response.status, headers: response.headers, body: response.body)
            }
        }
    }

    public func exchangeDidEnd(_ exchange: HTTPExchange) {
        guard let fallback, !routes.handles(target: exchange.request.target) else { return }
        fallback.exchangeDidEnd(exchange)
    }
}

@available(*, unavailable, message: "loop-owned: build one per event loop")
extension NativeRoutesHandler: Sendable {}
