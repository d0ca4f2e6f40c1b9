import AppNativeIdentity
import AppNativeProxy

/// One route of `ROUTES_FILE`: which requests it takes (`host`, `path`), where they go
/// (`upstream`), and the rules that differ from the gateway's defaults for them.
struct RouteDefinition: Sendable {
    /// A name for logs, metrics and problems: `name` from the file, else `routes[<index>]`.
    var name: String
    /// Exact host, lower case, without a port; `nil` for every host.
    var host: String?
    /// Client-facing path prefix, matched on segment boundaries (`/` when the file gives none).
    var path: PathPrefix
    /// The backends, used in turn: `http(s)://host[:port][/prefix]`.
    var upstreams: [String]
    /// Client-facing prefixes served without credentials.
    var publicPaths: [PathPrefix] = []
    /// The route's access policy (client-facing paths); `nil`: the gateway's `ACCESS_POLICY_FILE`.
    var policy: AccessPolicy?
    /// The upstream gets the path without the route's prefix (at least `/`).
    var stripsPath = false
    /// The `Host` the route's upstreams get; `nil`: `UPSTREAM_HOST_HEADER`.
    var hostHeader: UpstreamHostHeader?
    /// Per-route upstream timeouts; `nil`: the gateway's settings.
    var connectTimeout: Duration?
    var responseTimeout: Duration?
    /// Whether the app's native routes are served on this route; `nil`: `NATIVE_ROUTES`.
    var servesNativeRoutes: Bool?
    /// The identity header profile for this route's backend; `nil`: `IDENTITY_HEADERS`.
    var identityProfile: IdentityHeaders.Profile?

    /// `target` (path and query) as this route's upstream gets it: without the route's prefix
    /// when the route strips it, and never empty (`/` at least).
    func upstreamTarget(_ target: String) -> String {
        guard stripsPath else { return target }
        let query = target.firstIndex(of: "?")
        let path = query.map { target[..<$0] } ?? Substring(target)
        let rest = self.path.remainder(of: String(path)) ?? String(path)
        let stripped = rest.isEmpty ? "/" : rest
        return stripped + (query.map { String(target[$0...]) } ?? "")
    }
}
