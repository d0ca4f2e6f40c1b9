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
    case native(path: String, NativeRoute)
    case nativeWrongMethod(allowed: String)
    /// `PUBLIC_PATHS` and the upstream's own apple-app-site-association: forwarded anonymously.
    case publicPath
    /// Anything else: authenticated, then the upstream.
    case upstream(path: String)
}

/// The table itself: the endpoint prefix, the public paths and the native routes.
struct GatewayRoutes {
    let authPathPrefix: String
    let publicPathPrefixes: [String]
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
        // Native routes are matched before the public paths: they always need an identity.
        switch native.match(path: path, method: request.method) {
        case .route(let route): return .native(path: path, route)
        case .wrongMethod(let allowed): return .nativeWrongMethod(allowed: allowed)
        case .none: return isPublic(path) ? .publicPath : .upstream(path: path)
        }
    }

    private func isPublic(_ path: String) -> Bool {
        publicPathPrefixes.contains { path.hasPrefix($0) } || path == AppleAppSiteAssociation.path
    }
}
