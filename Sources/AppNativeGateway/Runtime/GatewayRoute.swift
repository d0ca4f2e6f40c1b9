import AppNativeHTTP
import AppNativeProxy
import AppNativeRoutes

/// Where a request goes, decided from its target and method before any credential is read:
/// the routing table of the request path in one place.
enum GatewayRoute {
    /// The target is not a path the gateway serves (400).
    case badTarget
    /// `/.well-known/apple-app-site-association` when `APPLE_APP_IDS` is set: unauthenticated.
    case appSiteAssociation
    case endpoint(GatewayEndpoint)
    case unknownEndpoint
    /// A CORS preflight: forwarded without credentials.
    case preflight
    /// A native route with its method; it always needs an identity.
    case native(path: DecisionPath, NativeRoute)
    case nativeWrongMethod(allowed: String)
    /// `PUBLIC_PATHS` and the upstream's own apple-app-site-association: forwarded anonymously.
    case publicPath
    /// Anything else: authenticated, then the upstream.
    case upstream(path: DecisionPath)
}

/// The table itself: the endpoint prefix, the public paths and the native routes.
struct GatewayRoutes {
    let authPathPrefix: String
    let publicPathPrefixes: [PathPrefix]
    let servesAppSiteAssociation: Bool
    let crossSite: CrossSiteRules

    func route(_ request: HTTPRequestHead, native: NativeRouter) -> GatewayRoute {
        // `OPTIONS *` (asterisk-form) concerns the server as a whole: rules see it as "/".
        guard let path = RequestPath.checked(request.target).map({ $0 == "*" ? "/" : $0 }) else { return .badTarget }
        if path == AppleAppSiteAssociation.path, servesAppSiteAssociation { return .appSiteAssociation }
        if path.hasPrefix(authPathPrefix) {
            return GatewayEndpoint(rawValue: String(path.dropFirst(authPathPrefix.count))).map(GatewayRoute.endpoint) ?? .unknownEndpoint
        }
        if crossSite.isPreflight(request) { return .preflight }
        let decision = DecisionPath(path)
        // Native routes are matched before the public paths: they always need an identity. They
        // are matched without `;` parameters, so none carries a native request past validation.
        switch native.match(path: decision.routed, method: request.method) {
        case .route(let route): return .native(path: decision, route)
        case .wrongMethod(let allowed): return .nativeWrongMethod(allowed: allowed)
        case .none: return decision.everyReading(isPublic) ? .publicPath : .upstream(path: decision)
        }
    }

    private func isPublic(_ path: String) -> Bool {
        publicPathPrefixes.contains { $0.matches(path) } || path == AppleAppSiteAssociation.path
    }
}
