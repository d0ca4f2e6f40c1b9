import AppNativeHTTP
import AppNativeProxy
import AppNativeRoutes

/// Where a request goes, decided from its target, host and method before any credential is
/// read: the routing table of the request path in one place.
enum GatewayRoute {
    /// The target is not a path the gateway serves, or its readings fall under different
    /// routes (400).
    case badTarget
    /// `/.well-known/apple-app-site-association` when `APPLE_APP_IDS` is set: unauthenticated.
    case appSiteAssociation
    case endpoint(GatewayEndpoint)
    case unknownEndpoint
    /// No route of `ROUTES_FILE` takes the request (404).
    case noRoute
    /// A CORS preflight: forwarded without credentials.
    case preflight(ServedRoute)
    /// A native route with its method; it always needs an identity.
    case native(path: DecisionPath, NativeRoute, ServedRoute)
    case nativeWrongMethod(allowed: String)
    /// The route's public paths (and `PUBLIC_PATHS`) and the upstream's own
    /// apple-app-site-association: forwarded anonymously.
    case publicPath(ServedRoute)
    /// Anything else: authenticated, then the route's upstream.
    case upstream(path: DecisionPath, ServedRoute)
}

/// The table itself: the gateway's own paths first (on every host), then the route, then, on
/// that route, the native routes and the public paths.
struct GatewayRoutes {
    let authPathPrefix: String
    let servesAppSiteAssociation: Bool
    let crossSite: CrossSiteRules

    func route(_ request: HTTPRequestHead, native: NativeRouter, routes: inout LoopRoutes) -> GatewayRoute {
        // `OPTIONS *` (asterisk-form) concerns the server as a whole: rules see it as "/".
        guard let path = RequestPath.checked(request.target).map({ $0 == "*" ? "/" : $0 }) else { return .badTarget }
        if path == AppleAppSiteAssociation.path, servesAppSiteAssociation { return .appSiteAssociation }
        if path.hasPrefix(authPathPrefix) {
            return GatewayEndpoint(rawValue: String(path.dropFirst(authPathPrefix.count))).map(GatewayRoute.endpoint) ?? .unknownEndpoint
        }
        let decision = DecisionPath(path)
        let route: ServedRoute
        switch routes.route(for: request, path: decision) {
        case .route(let chosen): route = chosen
        case .none: return .noRoute
        case .ambiguous: return .badTarget
        }
        if crossSite.isPreflight(request) { return .preflight(route) }
        // Native routes are matched before the public paths: they always need an identity. They
        // are matched without `;` parameters, so none carries a native request past validation.
        switch native.match(path: decision.routed, method: request.method, enabled: route.servesNativeRoutes) {
        case .route(let nativeRoute): return .native(path: decision, nativeRoute, route)
        case .wrongMethod(let allowed): return .nativeWrongMethod(allowed: allowed)
        case .none: return decision.everyReading(route.isPublic) ? .publicPath(route) : .upstream(path: decision, route)
        }
    }
}

extension GatewayRoute {
    /// The answers of the routing table itself, the same for a request and for the original
    /// request behind `verify`: 400 for a target the gateway refuses, 404 for an unknown
    /// endpoint or a request no route takes, 405 for a native route's wrong method.
    var refusal: Refusal {
        switch self {
        case .badTarget: .badTarget
        case .nativeWrongMethod(let allowed): .methodNotAllowed(allowed: allowed)
        case .unknownEndpoint, .noRoute, .appSiteAssociation, .endpoint, .preflight, .publicPath, .native, .upstream: .notFound
        }
    }
}
