import AppNativeProxy

/// The routes in force: the choice of a route (`RouteTable`) and, for each route, its upstreams
/// ready to dial. Built from `ROUTES_FILE` (with `UPSTREAM_URL` as the catch-all route `/` when
/// both are set), or from `UPSTREAM_URL` alone as one route for every request.
///
/// A value: a reload builds a new set and swaps it in whole (`RoutesSource`); requests in flight
/// keep the route they started with.
struct RouteSet: Sendable {
    /// One upstream URL of a route. `key` names the URL together with the route's options that
    /// shape its connections: a reload that keeps both keeps the configuration (its addresses,
    /// TLS context and, on every loop, its pool).
    struct Upstream: Sendable {
        let key: String
        let configuration: UpstreamConfiguration
    }

    let table: RouteTable
    /// Per route of `table.routes`, its upstreams in the order they are used.
    let upstreams: [[Upstream]]
    /// Whether routes come from `ROUTES_FILE` (access-log lines then name the route).
    let isFromFile: Bool
    /// Whether any route names a host: only then is a request's `Host` read to choose.
    let hasHostRoutes: Bool

    /// The name of the route `UPSTREAM_URL` becomes.
    static let catchAllName = "default"

    private init(table: RouteTable, upstreams: [[Upstream]], isFromFile: Bool) {
        self.table = table
        self.upstreams = upstreams
        self.isFromFile = isFromFile
        hasHostRoutes = table.routes.contains { $0.host != nil }
    }

    /// `UPSTREAM_URL` alone: one route, `/` on every host.
    static func single(_ upstream: UpstreamConfiguration) -> RouteSet {
        let route = RouteDefinition(name: catchAllName, host: nil, path: PathPrefix("/"), upstreams: ["UPSTREAM_URL"])
        return RouteSet(table: RouteTable([route]), upstreams: [[Upstream(key: "UPSTREAM_URL", configuration: upstream)]], isFromFile: false)
    }

    /// The routes of a checked file, each URL made ready with `settings` and the route's own
    /// options; `catchAll` (`UPSTREAM_URL`) is added as the route `/` for every host. A URL whose
    /// key `previous` already has keeps that configuration.
    ///
    /// - Returns: every problem, each naming the route and the member, when a URL cannot be used
    ///   (its TLS context, say) or `catchAll` collides with a route.
    static func build(
        _ definitions: [RouteDefinition], catchAll: UpstreamConfiguration?, settings: UpstreamSettings, reusing previous: RouteSet? = nil
    ) -> Result<RouteSet, RoutesFile.Invalid> {
        var known = [String: UpstreamConfiguration]()
        for upstream in (previous?.upstreams ?? []).joined() { known[upstream.key] = upstream.configuration }
        var problems = [RoutesFile.Problem]()
        var routes = definitions
        var upstreams = [[Upstream]]()
        for (index, route) in definitions.enumerated() {
            let location = route.name == "routes[\(index)]" ? route.name : "routes[\(index)] \"\(route.name)\""
            var settings = settings
            if let timeout = route.connectTimeout { settings.connectTimeout = timeout }
            if let timeout = route.responseTimeout { settings.responseTimeout = timeout }
            if let mode = route.hostHeader { settings.hostHeader = mode }
            var list = [Upstream]()
            for url in route.upstreams {
                let key = "\(url) connect=\(settings.connectTimeout) response=\(settings.responseTimeout) host=\(settings.hostHeader)"
                if let reused = known[key] {
                    list.append(Upstream(key: key, configuration: reused))
                    continue
                }
                do {
                    var configuration = try settings.configuration(url: url)
                    // Another URL of this file (or the one in force) on the same host and port
                    // shares its addresses: one resolver and one ejection state per backend.
                    if let same = (known.values.first { $0.target == configuration.target }) {
                        configuration.shareAddresses(same.addresses)
                    }
                    known[key] = configuration
                    list.append(Upstream(key: key, configuration: configuration))
                } catch {
                    problems.append(RoutesFile.Problem(location: "\(location).upstream", message: "\"\(url)\" \(error.description)"))
                }
            }
            if list.isEmpty, problems.isEmpty {
                problems.append(RoutesFile.Problem(location: "\(location).upstream", message: "has no usable URL"))
            }
            upstreams.append(list)
        }
        if let catchAll {
            if let clash = definitions.first(where: { $0.host == nil && $0.path.normalized == "/" }) {
                problems.append(RoutesFile.Problem(
                    location: "routes \"\(clash.name)\"",
                    message: "UPSTREAM_URL is the catch-all route / for every host; leave one of them out"))
            }
            if let clash = definitions.first(where: { $0.name == catchAllName }) {
                problems.append(RoutesFile.Problem(
                    location: "routes \"\(clash.name)\"", message: "the name \"\(catchAllName)\" is UPSTREAM_URL's route; choose another"))
            }
            routes.append(RouteDefinition(name: catchAllName, host: nil, path: PathPrefix("/"), upstreams: ["UPSTREAM_URL"]))
            upstreams.append([Upstream(key: "UPSTREAM_URL", configuration: catchAll)])
        }
        guard problems.isEmpty else { return .failure(RoutesFile.Invalid(problems: problems)) }
        return .success(RouteSet(table: RouteTable(routes), upstreams: upstreams, isFromFile: true))
    }

    /// Every distinct address set the routes dial (a resolver each).
    var addresses: [UpstreamAddresses] {
        var seen = Set<ObjectIdentifier>()
        return upstreams.joined().map(\.configuration.addresses).filter { seen.insert(ObjectIdentifier($0)).inserted }
    }

    /// Whether every route has an upstream whose host resolved (`/readyz`).
    var isResolved: Bool {
        upstreams.allSatisfy { list in list.contains { $0.configuration.addresses.isResolved } }
    }
}
