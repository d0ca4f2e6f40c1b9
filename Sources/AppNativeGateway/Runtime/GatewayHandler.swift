import AppNativeAuth
import AppNativeClient
import AppNativeCore
import AppNativeHTTP
import AppNativeIdentity
import AppNativeJSON
import AppNativeProxy
import AppNativeRoutes
import AppNativeServer
import AppNativeSignIn
import Foundation

/// The gateway's request path on one loop: the routing table (`GatewayRoutes`) decides where a
/// request goes; the gateway's own endpoints answer (`GatewayEndpoints`, and
/// `BrowserSignInEndpoints` for the browser sign-in); everything else is authenticated, meets the
/// Origin rule and authorization, gets its identity headers, then goes to a native route or the
/// proxy, on the route (`ServedRoute`) chosen for it before its credentials were read.
final class GatewayHandler: HTTPExchangeHandler {
    private let proxy: ProxyHandler
    private let native: NativeRouter
    /// The identity settings; the session cookie codec and the assertion signer in them are
    /// replaced when `SIGHUP` rotated their files (`rotatedSecrets`).
    private var settings: IdentitySettings
    private let metrics: IdentityMetrics
    private let logger: Logger
    private let routes: GatewayRoutes
    private var endpoints: GatewayEndpoints
    /// The browser sign-in, when `BROWSER_SIGN_IN` is on.
    private let signIn: BrowserSignInEndpoints?
    /// Identity header blocks and `Set-Cookie` fields of repeated identities (loop-owned), in
    /// `IDENTITY_HEADERS`' profile and in the other profiles routes ask for.
    private var renderedIdentities: RenderedIdentities
    private var renderedByProfile: [IdentityHeaders.Profile: RenderedIdentities] = [:]
    /// This loop's copy of the routes in force (`ROUTES_FILE`, or `UPSTREAM_URL` alone).
    private var loopRoutes: LoopRoutes
    private let crossSite: CrossSiteRules
    /// Exchanges waiting for a key reload, and for the authorization hook (loop-owned).
    private let keyReloads: OffLoopWait<Admission>
    private let hookCalls: OffLoopWait<Admitted>
    private let groupLookups: OffLoopWait<Admitted>

    /// Where a request goes once authenticated, decided by `serve` before its credentials are
    /// looked at and carried through authentication (and authorization). The steps are methods
    /// handed this value rather than nested closures: an escaping closure allocates its context
    /// on every request even when the step answers at once, as it does unless a key reload or
    /// the authorization hook has to be waited for.
    private enum Admission {
        /// The upstream, or a native route: the Origin rule and authorization first.
        case upstream(path: DecisionPath, nativeRoute: NativeRoute?, route: ServedRoute)
        /// Forward-auth `verify`: the original request a front proxy asks about, judged by the
        /// same Origin rule and authorization as a request for the upstream; 200 instead of the
        /// upstream.
        case forwardAuth(original: HTTPRequestHead, path: DecisionPath, route: ServedRoute)
        /// `<AUTH_PATH_PREFIX>session`, `me`: answered by the gateway itself.
        case endpoint(AuthenticatedEndpoint)
    }

    /// The gateway's endpoints that answer only an authenticated request.
    private enum AuthenticatedEndpoint {
        case session, me
    }

    /// An authenticated request on its way through the Origin rule and authorization.
    private struct Admitted {
        /// The request the rules judge: the exchange's own, or the original request behind
        /// `verify`.
        let request: HTTPRequestHead
        let path: DecisionPath
        /// The route the request was chosen for: its policy, identity profile and upstreams.
        let route: ServedRoute
        let destination: Destination
        let identity: VerifiedIdentity
        let refreshesCookie: Bool
    }

    /// Where an admitted request goes: the upstream (or a native route), or `verify`'s 200.
    private enum Destination {
        case upstream(NativeRoute?)
        case verify
    }

    init(
        loop: EventLoop,
        proxy: ProxyHandler,
        native: NativeRouter,
        routes routesSource: RoutesSource,
        registry: MetricsRegistry,
        appSiteAssociation: [UInt8]?,
        openAPIDocument: [UInt8],
        settings: IdentitySettings,
        signIn: BrowserSignInEndpoints?,
        metrics: IdentityMetrics,
        logger: Logger
    ) {
        self.proxy = proxy
        renderedIdentities = RenderedIdentities(settings: settings)
        let crossSite = CrossSiteRules(allowedOrigins: settings.allowedOrigins)
        self.crossSite = crossSite
        keyReloads = OffLoopWait(loop: loop)
        hookCalls = OffLoopWait(loop: loop)
        groupLookups = OffLoopWait(loop: loop)
        self.native = native
        routes = GatewayRoutes(authPathPrefix: settings.authPathPrefix, servesAppSiteAssociation: appSiteAssociation != nil, crossSite: crossSite)
        loopRoutes = LoopRoutes(
            source: routesSource, loop: loop, registry: registry, publicPaths: settings.publicPathPrefixes.map(PathPrefix.init),
            servesNativeRoutes: native.isEnabled)
        endpoints = GatewayEndpoints(
            settings: settings, crossSite: crossSite, appSiteAssociation: appSiteAssociation, openAPIDocument: openAPIDocument)
        self.signIn = signIn
        self.settings = settings
        self.metrics = metrics
        self.logger = logger
        cookieName = settings.authenticator.cookies?.settings.name
        accessPolicy = settings.accessPolicy.map(AccessPolicySource.Snapshot.init)
        rotatedSecrets = RotatedSecrets(settings)
    }

    /// This loop's copies of the secrets read from files (session secret, assertion keys).
    private var rotatedSecrets: RotatedSecrets

    /// Puts the secrets a `SIGHUP` rotated in force for the requests that start from now on, and
    /// drops what was rendered with the old ones (an atomic load each when nothing rotated).
    private func takeRotatedSecrets() {
        guard settings.takeRotated(&rotatedSecrets) else { return }
        renderedIdentities = RenderedIdentities(settings: settings)
        endpoints = GatewayEndpoints(
            settings: settings, crossSite: crossSite, appSiteAssociation: endpoints.appSiteAssociation,
            openAPIDocument: endpoints.openAPIDocument)
        if let cookies = settings.authenticator.cookies { signIn?.cookies = cookies }
    }

    /// This loop's copy of the access policy in force (`ACCESS_POLICY_FILE`, reloaded on SIGHUP).
    private var accessPolicy: AccessPolicySource.Snapshot?

    /// The session cookie's name, stripped from upstream requests (read once: every request needs it).
    private let cookieName: String?

    func serve(_ exchange: HTTPExchange) {
        takeRotatedSecrets()
        let route = routes.route(exchange.request, native: native, routes: &loopRoutes)
        switch route {
        case .badTarget, .unknownEndpoint, .nativeWrongMethod, .noRoute:
            refuse(route.refusal, exchange)
        case .appSiteAssociation:
            endpoints.serveAppSiteAssociation(exchange)
        case .endpoint(let endpoint):
            serveEndpoint(endpoint, exchange)
        case .preflight(let served), .publicPath(let served):
            name(served, exchange)
            forwardAnonymous(exchange, served)
        case .native(let path, let nativeRoute, let served):
            name(served, exchange)
            authenticate(exchange, .upstream(path: path, nativeRoute: nativeRoute, route: served))
        case .upstream(let path, let served):
            name(served, exchange)
            authenticate(exchange, .upstream(path: path, nativeRoute: nil, route: served))
        }
    }

    /// Access-log lines name the route when routes come from `ROUTES_FILE`.
    private func name(_ route: ServedRoute, _ exchange: HTTPExchange) {
        if route.isNamed { exchange.logFields["route"] = route.name }
    }

    /// The one place a refusal is rendered: counted and logged under its reason (when it has
    /// one), then answered as a JSON error with its fields.
    private func refuse(_ refusal: Refusal, _ exchange: HTTPExchange) {
        record(refusal, exchange)
        exchange.respondJSONError(status: refusal.status, detail: refusal.detail, headers: refusal.fields)
    }

    /// Counts and logs a refusal under its reason, also when it is answered otherwise (a
    /// browser navigation sent to sign in).
    private func record(_ refusal: Refusal, _ exchange: HTTPExchange) {
        guard let reason = refusal.reason else { return }
        metrics.outcome("rejected", reason: reason)
        exchange.logFields["auth.reason"] = reason
    }

    /// After authentication: an endpoint answers; a request for the upstream, and the original
    /// request behind `verify`, meet the Origin rule, then authorization.
    private func authenticated(
        _ exchange: HTTPExchange, _ admission: Admission, _ identity: VerifiedIdentity, refreshesCookie: Bool
    ) {
        switch admission {
        case .endpoint(let endpoint):
            answer(endpoint, exchange, identity, refreshesCookie: refreshesCookie)
        case .upstream(let path, let nativeRoute, let route):
            admit(exchange, Admitted(
                request: exchange.request, path: path, route: route, destination: .upstream(nativeRoute), identity: identity,
                refreshesCookie: refreshesCookie))
        case .forwardAuth(let original, let path, let route):
            admit(exchange, Admitted(
                request: original, path: path, route: route, destination: .verify, identity: identity, refreshesCookie: false))
        }
    }

    /// The Origin rule, then authorization, on the request `admitted` judges.
    private func admit(_ exchange: HTTPExchange, _ admitted: Admitted) {
        guard crossSite.allowsCredentialedRequest(admitted.request, method: admitted.identity.method) else {
            refuse(.originNotAllowed, exchange)
            return
        }
        authorize(exchange, admitted)
    }

    /// After authorization: the identity fields (and the hook's) to the upstream, the session
    /// cookie to the client, then the native route or the proxy; or, for `verify`, the same
    /// fields on its 200 for the front proxy to copy.
    private func authorized(_ exchange: HTTPExchange, _ admitted: Admitted, hookHeaders: HTTPHeaders) {
        let identity = admitted.identity
        let rendered = rendered(identity, issuingCookie: admitted.refreshesCookie, profile: admitted.route.definition.identityProfile)
        exchange.extraResponseHeaders.append(contentsOf: rendered.setCookie)
        var headers = rendered.identity
        headers.append(contentsOf: hookHeaders)
        switch admitted.destination {
        case .verify:
            endpoints.answerVerify(exchange, identityHeaders: headers)
        case .upstream(let nativeRoute?):
            serveNative(nativeRoute, exchange, identityHeaders: headers, route: admitted.route)
        case .upstream(nil):
            let (pool, alternates) = admitted.route.nextPools()
            let forwarded = proxy.forward(
                exchange,
                extraHeaders: headers,
                strippedCookie: cookieName,
                keepsAuthorization: settings.passesAuthorization,
                pool: pool,
                alternates: alternates,
                target: admitted.route.upstreamTarget(exchange.request.target)
            )
            closeWhenCredentialExpires(exchange, forwarded, identity: identity)
        }
    }

    // MARK: Authorization

    /// The access policy (the route's, else `ACCESS_POLICY_FILE`'s), then the authorization hook
    /// (cached per object id, else asked off the loop). 403 `Not allowed` on deny, 503 when the
    /// hook cannot answer (contract/auth.md §7).
    private func authorize(_ exchange: HTTPExchange, _ admitted: Admitted) {
        // Read once: a request finishes on the policy it started with, whatever SIGHUP swaps in.
        guard let policy = admitted.route.definition.policy ?? accessPolicy?.policy() else {
            authorizeByHook(exchange, admitted)
            return
        }
        switch policyVerdict(policy, admitted) {
        case .lookUpGroups:
            // Only the directory (Graph) can tell: asked off the loop, the exchange parked.
            let source = settings.groupsSource
            let user = admitted.identity.user
            groupLookups.wait(exchange, with: admitted, for: { await source.fetchGroups(of: user) }) {
                [weak self] exchange, admitted, lookup in
                guard let self else { return }
                self.finishPolicy(self.groupsVerdict(policy, admitted, lookup), exchange)
            }
        case let verdict:
            finishPolicy(verdict, exchange)
        }
    }

    /// What the access policy decided.
    private enum PolicyVerdict {
        /// Allowed; `admitted` carries the groups a directory supplied, for the identity headers.
        case allowed(Admitted)
        /// Refused (403); the reason logged: `policy`, or `groups_overage`.
        case refused(reason: String)
        /// A `groups` rule met a caller whose groups the directory cannot tell now: 503.
        case unavailable(reason: String, retryAfterSeconds: Int)
        /// Only the directory can tell.
        case lookUpGroups
    }

    private func finishPolicy(_ verdict: PolicyVerdict, _ exchange: HTTPExchange) {
        switch verdict {
        case .allowed(let admitted):
            authorizeByHook(exchange, admitted)
        case .refused(let reason):
            refuse(.notAllowed(reason: reason), exchange)
        case .unavailable(let reason, let seconds):
            refuse(.groupsUnavailable(reason: reason, retryAfterSeconds: seconds), exchange)
        case .lookUpGroups:
            // Only after a fetch: a directory that still cannot tell is not asked again in a
            // loop; the request is answered as when the directory is down.
            refuse(.groupsUnavailable(reason: "graph_unavailable", retryAfterSeconds: 5), exchange)
        }
    }

    private func authorizeByHook(_ exchange: HTTPExchange, _ admitted: Admitted) {
        let identity = admitted.identity
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

    /// The access policy on every reading of the path: allowed, or the reason refused (`policy`,
    /// or the groups source's reason, `groups_overage`, when a `groups` rule met a caller whose
    /// credential did not carry all its groups and the source cannot tell), or the directory's
    /// answer still to come.
    private func policyVerdict(_ policy: AccessPolicy, _ admitted: Admitted) -> PolicyVerdict {
        let user = admitted.identity.user
        let method = admitted.request.method
        var needsGroups = false
        let isAllowedOrDeferred = admitted.path.everyReading { path in
            switch policy.decision(for: user, method: method, path: path) {
            case .allow: return true
            case .deny: return false
            case .needsGroups:
                needsGroups = true
                return true
            }
        }
        guard isAllowedOrDeferred else { return .refused(reason: "policy") }
        guard needsGroups else { return .allowed(admitted) }
        return groupsVerdict(policy, admitted, settings.groupsSource.groups(of: user))
    }

    private func groupsVerdict(_ policy: AccessPolicy, _ admitted: Admitted, _ lookup: GroupsLookup) -> PolicyVerdict {
        let user = admitted.identity.user
        let method = admitted.request.method
        switch lookup {
        case .known(let groups):
            guard admitted.path.everyReading({ policy.allows(user, groups: groups, method: method, path: $0) }) else {
                return .refused(reason: "policy")
            }
            guard user.hasGroupsOverage else { return .allowed(admitted) }
            // The directory's groups go to the upstream; the overage mark stays, so a cookie
            // issued now carries `hasgroups`, never a snapshot of the list.
            var identity = admitted.identity
            identity.user.groups = groups
            return .allowed(
                Admitted(
                    request: admitted.request, path: admitted.path, route: admitted.route, destination: admitted.destination,
                    identity: identity, refreshesCookie: admitted.refreshesCookie))
        case .unknown(let reason):
            logger.warning(
                "a groups rule met a groups overage: the credential does not carry all the caller's groups, refused",
                ["auth.reason": reason, "user.oid": user.objectID, "auth.method": admitted.identity.method.rawValue])
            return .refused(reason: reason)
        case .unavailable(let reason, let seconds):
            logger.warning(
                "a groups rule met a groups overage and Microsoft Graph cannot answer now: 503",
                ["auth.reason": reason, "user.oid": user.objectID, "auth.method": admitted.identity.method.rawValue])
            return .unavailable(reason: reason, retryAfterSeconds: seconds)
        case .mustFetch:
            return .lookUpGroups
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
            refuse(.notAllowed(reason: "not_allowed"), exchange)
        case .unavailable:
            refuse(.authorizationUnavailable, exchange)
        }
    }

    /// A native route: its body is checked against the contract before the upstream sees it, and
    /// the upstream's answer is shaped into the contract's (contract/routes.md).
    /// A native route's events go to its own URL when it has one, else to the route's upstream.
    private func serveNative(_ nativeRoute: NativeRoute, _ exchange: HTTPExchange, identityHeaders: HTTPHeaders, route: ServedRoute) {
        let requestID = RequestID.resolve(from: exchange.request.headers)
        exchange.logFields["native.route"] = nativeRoute.rawValue
        native.metrics.request(nativeRoute)
        let mediation: ExchangeMediation, ownPool: UpstreamPool?
        switch native.mediation(for: nativeRoute, exchange: exchange, requestID: requestID) {
        case .serve(let served, let pool):
            (mediation, ownPool) = (served, pool)
        case .refuse(let answer):
            native.metrics.rejected(nativeRoute, status: answer.status)
            exchange.respond(status: answer.status, headers: answer.headers, body: answer.body)
            return
        }
        let (pool, alternates) = ownPool.map { ($0, []) } ?? route.nextPools()
        proxy.forward(
            exchange,
            extraHeaders: identityHeaders,
            strippedCookie: cookieName,
            keepsAuthorization: settings.passesAuthorization,
            mediation: mediation,
            pool: pool,
            alternates: alternates,
            target: route.upstreamTarget(exchange.request.target),
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
        // the leeway only if the close never comes early. The deadline goes with the exchange.
        let objectID = identity.user.objectID
        forwarded.endWhenCredentialExpires(after: .milliseconds(Int64((max(0, min(remaining, 1e9)) * 1000).rounded(.up)))) {
            [logger] in
            logger.info("ending a long-lived connection: its credential expired", ["user.oid": objectID])
        }
    }

    func exchangeDidEnd(_ exchange: HTTPExchange) {
        proxy.exchangeDidEnd(exchange)
    }

    // MARK: Authentication

    /// Resolves credentials; on success goes on to `authenticated` on this loop, otherwise answers
    /// the rejection.
    private func authenticate(_ exchange: HTTPExchange, _ admission: Admission) {
        switch settings.authenticator.authenticateImmediately(headers: exchange.request.headers) {
        case .authenticated(let identity, let refreshesCookie):
            finish(.authenticated(identity, refreshesCookie: refreshesCookie), exchange, admission)
        case .rejected(let rejection):
            finish(.rejected(rejection), exchange, admission)
        case .mustWait(let token):
            // The token's kid is unknown: wait for the shared JWKS reload off the loop, then
            // continue on it. The exchange and its continuation stay in this loop's table; only
            // a ticket number and the outcome cross threads.
            metrics.waits.increment()
            let authenticator = settings.authenticator
            keyReloads.wait(exchange, with: admission, for: { await authenticator.authenticate(token: token) }) {
                [weak self] exchange, admission, resolved in
                self?.finish(resolved, exchange, admission)
            }
        }
    }

    private func finish(_ verdict: AuthenticationVerdict, _ exchange: HTTPExchange, _ admission: Admission) {
        switch verdict {
        case .authenticated(let identity, let refreshesCookie):
            metrics.authenticated(by: identity.method)
            exchange.logFields["user.oid"] = identity.user.objectID
            exchange.logFields["auth.method"] = identity.method.rawValue
            if identity.user.callerType == .app { exchange.logFields["auth.caller"] = "app" }
            authenticated(exchange, admission, identity, refreshesCookie: refreshesCookie)
        case .rejected(let rejection):
            let refusal = Refusal(rejection)
            // A browser navigation without a valid credential is sent to sign in; every other
            // request (and every 403/503) keeps its answer. Native routes never redirect.
            if rejection.status == 401, case .upstream(_, nil, _) = admission, let signIn, signIn.isSignInNavigation(exchange.request) {
                record(refusal, exchange)
                metrics.outcome("redirected", reason: "sign_in")
                signIn.redirectToSignIn(exchange)
                return
            }
            if rejection.status == 401, case .forwardAuth(let original, _, _) = admission, let signIn,
                let location = signIn.forwardAuthSignInLocation(original)
            {
                answerForwardAuthNavigation(exchange, refusal, location: location)
                return
            }
            refuse(refusal, exchange)
        }
    }

    /// `verify` refused a navigation: the 401 carries the sign-in URL in `Location`, for a front
    /// proxy to redirect to (nginx: `auth_request_set` + `error_page 401`), or, when the front
    /// passes the answer on as it is (Caddy `forward_auth` with `uri …verify?sign_in=redirect`),
    /// is that redirect.
    private func answerForwardAuthNavigation(_ exchange: HTTPExchange, _ refusal: Refusal, location: String) {
        let wantsRedirect = FormURLEncoding.parseQuery(ofTarget: exchange.request.target).contains {
            $0.name == "sign_in" && $0.value == "redirect"
        }
        if wantsRedirect {
            record(refusal, exchange)
            metrics.outcome("redirected", reason: "sign_in")
            exchange.respond(status: 302, headers: ["Location": location, "Cache-Control": "no-store", "Content-Length": "0"])
            return
        }
        var withLocation = refusal
        withLocation.headers.append(.init(name: "Location", value: location))
        refuse(withLocation, exchange)
    }

    /// The identity headers for the upstream (in `profile`, a route's, else `IDENTITY_HEADERS`'),
    /// and the `Set-Cookie` field for the client when `issuingCookie` and sessions are
    /// configured (else empty).
    private func rendered(
        _ identity: VerifiedIdentity, issuingCookie: Bool, profile: IdentityHeaders.Profile? = nil
    ) -> (identity: HTTPHeaders, setCookie: HTTPHeaders) {
        guard let profile, profile != settings.profile else { return renderedIdentities.rendered(identity, issuingCookie: issuingCookie) }
        // In place (`default:` subscript): a copy would duplicate the whole cache per request.
        return renderedByProfile[profile, default: RenderedIdentities(
            assertions: settings.assertions, profile: profile, cookies: settings.authenticator.cookies)]
            .rendered(identity, issuingCookie: issuingCookie)
    }

    private func identityHeaders(_ identity: VerifiedIdentity) -> HTTPHeaders {
        renderedIdentities.rendered(identity, issuingCookie: false).identity
    }

    private func forwardAnonymous(_ exchange: HTTPExchange, _ route: ServedRoute) {
        let (pool, alternates) = route.nextPools()
        proxy.forward(
            exchange, extraHeaders: HTTPHeaders(), strippedCookie: cookieName, keepsAuthorization: settings.passesAuthorization,
            pool: pool, alternates: alternates, target: route.upstreamTarget(exchange.request.target))
    }

    // MARK: Endpoints

    private func serveEndpoint(_ endpoint: GatewayEndpoint, _ exchange: HTTPExchange) {
        if endpoint.isSignIn, signIn == nil {
            refuse(.notFound, exchange)
            return
        }
        if let allowed = endpoint.disallowed(exchange.request.method) {
            refuse(.methodNotAllowed(allowed: allowed), exchange)
            return
        }
        switch endpoint {
        case .jwks:
            endpoints.serveKeySet(exchange)
        case .openAPI:
            endpoints.serveOpenAPI(exchange)
        case .logout:
            let clearing: HTTPHeaders
            switch endpoints.logoutClearing(exchange.request) {
            case .success(let fields): clearing = fields
            case .failure(let refusal):
                refuse(refusal, exchange)
                return
            }
            if let signIn, signIn.answerLogoutNavigation(exchange, clearing: clearing) { return }
            endpoints.answerLogout(exchange, clearing: clearing)
        case .session:
            guard BearerCredential.token(fromAuthorization: exchange.request.headers.first("Authorization")) != nil else {
                refuse(Refusal(AuthRejection.notAuthenticatedPublic), exchange)
                return
            }
            guard settings.authenticator.cookies != nil else {
                refuse(.sessionsNotConfigured, exchange)
                return
            }
            authenticate(exchange, .endpoint(.session))
        case .me:
            authenticate(exchange, .endpoint(.me))
        case .verify:
            serveVerify(exchange)
        case .login:
            signIn?.serveLogin(exchange)
        case .callback:
            signIn?.serveCallback(exchange)
        case .signedOut:
            signIn?.serveSignedOut(exchange)
        }
    }

    /// The answer of an endpoint to an authenticated request.
    private func answer(_ endpoint: AuthenticatedEndpoint, _ exchange: HTTPExchange, _ identity: VerifiedIdentity, refreshesCookie: Bool) {
        switch endpoint {
        case .session:
            switch endpoints.session(for: identity) {
            case .success(let fields): exchange.respond(status: 204, headers: fields)
            case .failure(let refusal): refuse(refusal, exchange)
            }
        case .me:
            endpoints.answerMe(exchange, identity, refreshesCookie: refreshesCookie)
        }
    }

    /// Forward-auth: the front proxy asks whether the request it holds may pass. That original
    /// request (`ForwardAuthRequest`) is routed by the same table and judged by the same rules as
    /// a request the gateway proxies itself, and gets the same answer, except that a request the
    /// proxy path would forward gets 200 with the identity fields (and the hook's) instead.
    private func serveVerify(_ exchange: HTTPExchange) {
        let original: HTTPRequestHead
        switch ForwardAuthRequest.original(of: exchange.request) {
        case .failure(let problem):
            refuse(Refusal(status: 400, detail: problem.detail, reason: problem.reason), exchange)
            return
        case .success(let request):
            original = request
        }
        let route = routes.route(original, native: native, routes: &loopRoutes)
        switch route {
        case .badTarget, .unknownEndpoint, .nativeWrongMethod, .noRoute:
            refuse(route.refusal, exchange)
        case .appSiteAssociation, .endpoint:
            // The gateway's own endpoints apply their own rules when the front proxy sends them there.
            endpoints.answerVerifyAnonymous(exchange)
        case .preflight(let served), .publicPath(let served):
            // Served without credentials on the proxy path too.
            name(served, exchange)
            endpoints.answerVerifyAnonymous(exchange)
        case .native(let path, _, let served), .upstream(let path, let served):
            name(served, exchange)
            authenticate(exchange, .forwardAuth(original: original, path: path, route: served))
        }
    }
}

@available(*, unavailable, message: "loop-owned")
extension GatewayHandler: Sendable {}
