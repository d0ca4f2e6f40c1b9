import AppNativeAuth
import AppNativeClient
import AppNativeCore
import AppNativeHTTP
import AppNativeIdentity
import AppNativeJSON
import AppNativeProxy
import AppNativeRoutes
import AppNativeServer
import Foundation

/// The gateway's request path on one loop: its own endpoints, public paths, authentication,
/// the Origin rule, identity headers, then the proxy.
final class GatewayHandler: HTTPExchangeHandler {
    private let proxy: ProxyHandler
    private let native: NativeRouter
    private let settings: IdentitySettings
    private let metrics: IdentityMetrics
    private let logger: Logger
    /// Identity header blocks and `Set-Cookie` fields of repeated identities (loop-owned).
    private var renderedIdentities: RenderedIdentities
    private let crossSite: CrossSiteRules
    /// Exchanges waiting for a key reload, and for the authorization hook (loop-owned).
    private let keyReloads: OffLoopWait<Admission>
    private let hookCalls: OffLoopWait<Admitted>

    /// Where a request goes once authenticated, decided by `serve` before its credentials are
    /// looked at and carried through authentication (and authorization). The steps are methods
    /// handed this value rather than nested closures: an escaping closure allocates its context
    /// on every request even when the step answers at once, as it does unless a key reload or
    /// the authorization hook has to be waited for.
    private enum Admission {
        /// The upstream, or a native route: the Origin rule and authorization first.
        case upstream(path: String, nativeRoute: NativeRoute?)
        /// `<AUTH_PATH_PREFIX>session`, `me`, `verify`: answered by the gateway itself.
        case endpoint(AuthEndpoint)
    }

    private enum AuthEndpoint {
        case session, me, verify
    }

    /// A request for the upstream with its verified identity, on its way through authorization.
    private struct Admitted {
        let path: String
        let nativeRoute: NativeRoute?
        let identity: VerifiedIdentity
        let refreshesCookie: Bool
    }

    /// The apple-app-site-association document when `APPLE_APP_IDS` is set (else the upstream's).
    private let appSiteAssociation: [UInt8]?
    /// `<AUTH_PATH_PREFIX>openapi.json`.
    private let openAPIDocument: [UInt8]

    init(
        loop: EventLoop,
        proxy: ProxyHandler,
        native: NativeRouter,
        appSiteAssociation: [UInt8]?,
        openAPIDocument: [UInt8],
        settings: IdentitySettings,
        metrics: IdentityMetrics,
        logger: Logger
    ) {
        self.proxy = proxy
        renderedIdentities = RenderedIdentities(settings: settings)
        crossSite = CrossSiteRules(allowedOrigins: settings.allowedOrigins)
        keyReloads = OffLoopWait(loop: loop)
        hookCalls = OffLoopWait(loop: loop)
        self.native = native
        self.appSiteAssociation = appSiteAssociation
        self.openAPIDocument = openAPIDocument
        self.settings = settings
        self.metrics = metrics
        self.logger = logger
        cookieName = settings.authenticator.cookies?.settings.name
    }

    /// The session cookie's name, stripped from upstream requests (read once: every request needs it).
    private let cookieName: String?

    func serve(_ exchange: HTTPExchange) {
        // `OPTIONS *` (asterisk-form) concerns the server as a whole: rules see it as "/".
        guard let path = RequestPath.checked(exchange.request.target).map({ $0 == "*" ? "/" : $0 }) else {
            metrics.outcome("rejected", reason: "target")
            exchange.respondJSONError(status: 400, detail: "Bad Request")
            return
        }
        if path == AppleAppSiteAssociation.path, let appSiteAssociation {
            // Unauthenticated and never redirected: Apple's CDN fetches it without credentials.
            exchange.respond(
                status: 200, headers: ["Content-Type": "application/json", "Cache-Control": "max-age=3600"], body: appSiteAssociation
            )
            return
        }
        if path.hasPrefix(settings.authPathPrefix) {
            serveEndpoint(String(path.dropFirst(settings.authPathPrefix.count)), exchange)
            return
        }
        if crossSite.isPreflight(exchange.request) {
            forwardAnonymous(exchange)
            return
        }
        // Native routes are matched before the public paths: they always need an identity.
        var nativeRoute: NativeRoute?
        switch native.match(path: path, method: exchange.request.method) {
        case .route(let route):
            nativeRoute = route
        case .wrongMethod(let allowed):
            exchange.respondJSONError(status: 405, detail: "Method Not Allowed", headers: ["Allow": allowed])
            return
        case .none:
            if isPublic(path) {
                forwardAnonymous(exchange)
                return
            }
        }
        authenticate(exchange, .upstream(path: path, nativeRoute: nativeRoute))
    }

    /// After authentication: an endpoint answers; a request for the upstream meets the Origin
    /// rule, then authorization.
    private func authenticated(
        _ exchange: HTTPExchange, _ admission: Admission, _ identity: VerifiedIdentity, refreshesCookie: Bool
    ) {
        switch admission {
        case .endpoint(let endpoint):
            answer(endpoint, exchange, identity, refreshesCookie: refreshesCookie)
        case .upstream(let path, let nativeRoute):
            guard crossSite.allowsCredentialedRequest(exchange.request, method: identity.method) else {
                metrics.outcome("rejected", reason: "origin")
                exchange.respondJSONError(status: 403, detail: "Origin not allowed")
                return
            }
            authorize(
                exchange,
                Admitted(path: path, nativeRoute: nativeRoute, identity: identity, refreshesCookie: refreshesCookie))
        }
    }

    /// After authorization: the identity fields (and the hook's) to the upstream, the session
    /// cookie to the client, then the native route or the proxy.
    private func authorized(_ exchange: HTTPExchange, _ admitted: Admitted, hookHeaders: HTTPHeaders) {
        let identity = admitted.identity
        let rendered = rendered(identity, issuingCookie: admitted.refreshesCookie)
        exchange.extraResponseHeaders.append(contentsOf: rendered.setCookie)
        var headers = rendered.identity
        headers.append(contentsOf: hookHeaders)
        if let nativeRoute = admitted.nativeRoute {
            serveNative(nativeRoute, exchange, identityHeaders: headers)
            return
        }
        let forwarded = proxy.forward(
            exchange,
            extraHeaders: headers,
            strippedCookie: cookieName,
            keepsAuthorization: settings.passesAuthorization
        )
        closeWhenCredentialExpires(exchange, forwarded, identity: identity)
    }

    // MARK: Authorization

    /// The access policy, then the authorization hook (cached per object id, else asked off the
    /// loop). 403 `Not allowed` on deny, 503 when the hook cannot answer (contract/auth.md §7).
    private func authorize(_ exchange: HTTPExchange, _ admitted: Admitted) {
        let identity = admitted.identity
        if let policy = settings.accessPolicy,
            !policy.allows(identity.user, method: exchange.request.method, path: admitted.path)
        {
            metrics.outcome("rejected", reason: "policy")
            reject(exchange, .notAllowed)
            return
        }
        guard let hook = settings.authorizationHook else {
            authorized(exchange, admitted, hookHeaders: HTTPHeaders())
            return
        }
        if let decision = hook.cachedDecision(for: identity.user.objectID) {
            apply(decision, exchange, admitted)
            return
        }
        let fields = identityHeaders(identity).map { HTTPHeaderField(name: $0.name, value: $0.value) }
        let objectID = identity.user.objectID
        hookCalls.wait(exchange, with: admitted, for: { await hook.decide(for: objectID, identityHeaders: fields) }) {
            [weak self] exchange, admitted, decision in
            self?.apply(decision, exchange, admitted)
        }
    }

    private func apply(_ decision: AuthorizationHook.Decision, _ exchange: HTTPExchange, _ admitted: Admitted) {
        switch decision {
        case .allow(let fields):
            var headers = HTTPHeaders()
            // `AuthorizationHook.interpret` passed only valid names and values: checked once per
            // hook answer, not again for every request its cached decision allows.
            for field in fields { headers.add(name: field.name, value: field.value) }
            authorized(exchange, admitted, hookHeaders: headers)
        case .deny:
            metrics.outcome("rejected", reason: "not_allowed")
            reject(exchange, .notAllowed)
        case .unavailable:
            metrics.outcome("rejected", reason: "authorize_unavailable")
            exchange.respondJSONError(status: 503, detail: "Authorization is temporarily unavailable", headers: ["Retry-After": "5"])
        }
    }

    /// A native route: its body is checked against the contract before the upstream sees it, and
    /// the upstream's answer is shaped into the contract's (contract/routes.md).
    private func serveNative(_ route: NativeRoute, _ exchange: HTTPExchange, identityHeaders: HTTPHeaders) {
        let requestID = RequestID.resolve(from: exchange.request.headers)
        exchange.logFields["native.route"] = route.rawValue
        guard let (mediation, pool) = native.mediation(for: route, exchange: exchange, requestID: requestID) else { return }
        proxy.forward(
            exchange,
            extraHeaders: identityHeaders,
            strippedCookie: cookieName,
            keepsAuthorization: settings.passesAuthorization,
            mediation: mediation,
            pool: pool,
            requestID: requestID
        )
    }

    /// Long-lived connections end with their credential: a signed-out or removed user does not
    /// stay connected for hours on a WebSocket or an event stream.
    /// The WebSocket gets close code 4401 ("credential expired") and the event stream a clean end,
    /// so the app can tell an expiry from a network failure and sign in again.
    private func closeWhenCredentialExpires(_ exchange: HTTPExchange, _ forwarded: ForwardedExchange, identity: VerifiedIdentity) {
        let request = exchange.request
        let isWebSocket = request.headers.containsToken("websocket", inField: "Upgrade")
        guard isWebSocket || request.headers.containsMediaType("text/event-stream", inField: "Accept") else { return }
        let remaining = identity.expiresAt + settings.credentialExpiryGrace.seconds - SystemTimeSource().wallSeconds
        // Rounded up: the credential is accepted until its exp + leeway, and the grace is at least
        // the leeway only if the close never comes early.
        exchange.loop.schedule(after: .milliseconds(Int64((max(0, min(remaining, 1e9)) * 1000).rounded(.up)))) { [weak exchange, logger] in
            guard let exchange, exchange.holdsConnection else { return }
            logger.info("ending a long-lived connection: its credential expired", ["user.oid": identity.user.objectID])
            forwarded.endForExpiredCredential()
        }
    }

    func exchangeDidEnd(_ exchange: HTTPExchange) {
        proxy.exchangeDidEnd(exchange)
    }

    // MARK: Authentication

    /// Resolves credentials; on success goes on to `authenticated` on this loop, otherwise answers
    /// the rejection.
    private func authenticate(_ exchange: HTTPExchange, _ admission: Admission) {
        let outcome = settings.authenticator.authenticateImmediately(headers: exchange.request.headers)
        if case .mustWait(let token) = outcome {
            // The token's kid is unknown: wait for the shared JWKS reload off the loop, then
            // continue on it. The exchange and its continuation stay in this loop's table; only
            // a ticket number and the outcome cross threads.
            metrics.waits.increment()
            let authenticator = settings.authenticator
            keyReloads.wait(exchange, with: admission, for: { await authenticator.authenticate(token: token) }) {
                [weak self] exchange, admission, resolved in
                self?.finish(resolved, exchange, admission)
            }
            return
        }
        finish(outcome, exchange, admission)
    }

    private func finish(_ outcome: AuthenticationOutcome, _ exchange: HTTPExchange, _ admission: Admission) {
        switch outcome {
        case .authenticated(let identity, let refreshesCookie):
            metrics.authenticated(by: identity.method)
            exchange.logFields["user.oid"] = identity.user.objectID
            exchange.logFields["auth.method"] = identity.method.rawValue
            authenticated(exchange, admission, identity, refreshesCookie: refreshesCookie)
        case .rejected(let rejection):
            metrics.outcome("rejected", reason: rejection.reason)
            exchange.logFields["auth.reason"] = rejection.reason
            reject(exchange, rejection)
        case .mustWait:
            preconditionFailure("resolved outcomes never wait")
        }
    }

    private func reject(_ exchange: HTTPExchange, _ rejection: AuthRejection) {
        var headers = HTTPHeaders()
        for field in rejection.headers { headers.add(name: field.name, value: field.value) }
        exchange.respondJSONError(status: rejection.status, detail: rejection.detail, headers: headers)
    }

    /// The identity headers for the upstream, and the `Set-Cookie` field for the client when
    /// `issuingCookie` and sessions are configured (else empty).
    private func rendered(_ identity: VerifiedIdentity, issuingCookie: Bool) -> (identity: HTTPHeaders, setCookie: HTTPHeaders) {
        renderedIdentities.rendered(identity, issuingCookie: issuingCookie)
    }

    private func identityHeaders(_ identity: VerifiedIdentity) -> HTTPHeaders {
        renderedIdentities.rendered(identity, issuingCookie: false).identity
    }

    private func forwardAnonymous(_ exchange: HTTPExchange) {
        proxy.forward(exchange, extraHeaders: HTTPHeaders(), strippedCookie: cookieName, keepsAuthorization: settings.passesAuthorization)
    }

    // MARK: Rules

    private func isPublic(_ path: String) -> Bool {
        settings.publicPathPrefixes.contains { path.hasPrefix($0) }
            || path == "/.well-known/apple-app-site-association"
    }

    // MARK: Endpoints

    /// Methods each endpoint answers (HEAD goes with GET); others get 405 with `Allow`.
    /// `verify` takes every method: forward-auth proxies pass the original request's method.
    static let endpointMethods: [String: [String]] = [
        "jwks.json": ["GET"], "openapi.json": ["GET"], "me": ["GET"],
        "session": ["GET", "POST"], "logout": ["POST"],
        "verify": ["GET", "POST", "PUT", "PATCH", "DELETE"],
    ]

    private func serveEndpoint(_ name: String, _ exchange: HTTPExchange) {
        if let methods = Self.endpointMethods[name] {
            let method = exchange.request.method == "HEAD" ? "GET" : exchange.request.method
            guard methods.contains(method) else {
                let allowed = methods.contains("GET") ? methods + ["HEAD"] : methods
                exchange.respondJSONError(status: 405, detail: "Method Not Allowed", headers: ["Allow": allowed.joined(separator: ", ")])
                return
            }
        }
        switch name {
        case "jwks.json":
            exchange.respond(
                status: 200,
                headers: ["Content-Type": "application/json", "Cache-Control": "max-age=300"],
                body: Array(settings.assertions.jwksDocument.utf8)
            )
        case "openapi.json":
            exchange.respond(status: 200, headers: ["Content-Type": "application/json"], body: openAPIDocument)
        case "logout":
            guard crossSite.allowsLogout(exchange.request) else {
                metrics.outcome("rejected", reason: "origin")
                exchange.respondJSONError(status: 403, detail: "Origin not allowed")
                return
            }
            var headers: HTTPHeaders = ["Cache-Control": "no-store"]
            if let cookies = settings.authenticator.cookies {
                headers.add(name: "Set-Cookie", value: cookies.clearCookieHeader())
            }
            exchange.respond(status: 204, headers: headers)
        case "session":
            guard BearerCredential.token(fromAuthorization: exchange.request.headers.first("Authorization")) != nil else {
                reject(exchange, AuthRejectionTable.notAuthenticated)
                return
            }
            guard settings.authenticator.cookies != nil else {
                exchange.respondJSONError(status: 404, detail: "Sessions are not configured")
                return
            }
            authenticate(exchange, .endpoint(.session))
        case "me":
            authenticate(exchange, .endpoint(.me))
        case "verify":
            authenticate(exchange, .endpoint(.verify))
        default:
            exchange.respondJSONError(status: 404, detail: "Not Found")
        }
    }

    /// The answer of an endpoint to an authenticated request.
    private func answer(_ endpoint: AuthEndpoint, _ exchange: HTTPExchange, _ identity: VerifiedIdentity, refreshesCookie: Bool) {
        switch endpoint {
        case .session:
            // Checked before authenticating too (404 comes before 401); answered here as well, so
            // no path leaves the exchange without an answer.
            guard let cookies = settings.authenticator.cookies else {
                exchange.respondJSONError(status: 404, detail: "Sessions are not configured")
                return
            }
            exchange.respond(status: 204, headers: [
                "Set-Cookie": cookies.setCookieHeader(for: identity.user), "Cache-Control": "no-store",
            ])
        case .me:
            if refreshesCookie, let cookies = settings.authenticator.cookies {
                exchange.extraResponseHeaders.add(name: "Set-Cookie", value: cookies.setCookieHeader(for: identity.user))
            }
            exchange.respond(
                status: 200,
                headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
                body: Array(Self.meDocument(identity).utf8)
            )
        case .verify:
            // Forward-auth (nginx auth_request, Traefik ForwardAuth, Caddy forward_auth):
            // 200 with the identity headers, or the rejection.
            var headers = identityHeaders(identity)
            // Every header of the profile, empty when the identity has no value: a front proxy
            // copying a header the answer lacks would otherwise pass on whatever the client sent
            // under that name, or (Caddy 2.6) its own unreplaced placeholder text.
            for name in Self.optionalIdentityHeaders[settings.profile] ?? [] where !headers.contains(name) {
                headers.add(name: name, value: "")
            }
            headers.add(name: "Cache-Control", value: "no-store")
            headers.add(name: "Content-Length", value: "0")
            exchange.respond(status: 200, headers: headers)
        }
    }

    /// Identity headers a profile sends only when the identity has the value.
    static let optionalIdentityHeaders: [IdentityHeaders.Profile: [String]] = [
        .gateway: ["X-AppNative-User-Name", "X-AppNative-User-UPN", "X-AppNative-User-Roles"],
        .oauth2Proxy: ["X-Forwarded-Groups"],
    ]

    /// `GET me`'s document, written by AppNativeJSON like every JSON answer.
    static func meDocument(_ identity: VerifiedIdentity) -> String {
        let user = identity.user
        var fields: [(String, JSONValue)] = [
            ("oid", .string(user.objectID)),
            ("email", .string(user.email)),
            ("tenant_id", .string(user.tenantID)),
            ("auth_method", .string(identity.method.rawValue)),
            ("expires_at", .number(JSONNumber(Int64(max(-9.0e15, min(identity.expiresAt, 9.0e15)))))),
        ]
        if let name = user.name { fields.append(("name", .string(name))) }
        if let upn = user.upn { fields.append(("upn", .string(upn))) }
        if !user.roles.isEmpty { fields.append(("roles", .array(user.roles.map { .string($0) }))) }
        return JSONSerializer.string(.object(JSONObject(fields)))
    }

}

/// Rejections the gateway's endpoints use directly.
enum AuthRejectionTable {
    static let notAuthenticated = AuthRejection.notAuthenticatedPublic
}

@available(*, unavailable, message: "loop-owned")
extension GatewayHandler: Sendable {}
