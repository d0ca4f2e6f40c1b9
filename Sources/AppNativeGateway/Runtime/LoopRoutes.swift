import AppNativeCore
import AppNativeHTTP
import AppNativeIdentity
import AppNativeProxy
import AppNativeServer

/// One route as one loop serves it (loop-owned): the rules that differ per route and this loop's
/// pools for its upstreams. A request carries it from routing to forwarding, so a request in
/// flight during a reload finishes on the route (and the pool) it started with.
final class ServedRoute {
    let definition: RouteDefinition
    /// Whether access-log lines name the route (`ROUTES_FILE` is set).
    let isNamed: Bool
    /// `PUBLIC_PATHS` and the route's own `public_paths`.
    private let publicPaths: [PathPrefix]
    /// The route's `native_routes`, else `NATIVE_ROUTES`.
    let servesNativeRoutes: Bool
    private let pools: [UpstreamPool]
    /// The next of `pools` in turn.
    private var turn = 0

    init(_ definition: RouteDefinition, isNamed: Bool, publicPaths: [PathPrefix], servesNativeRoutes: Bool, pools: [UpstreamPool]) {
        self.definition = definition
        self.isNamed = isNamed
        self.publicPaths = publicPaths + definition.publicPaths
        self.servesNativeRoutes = definition.servesNativeRoutes ?? servesNativeRoutes
        self.pools = pools
    }

    var name: String { definition.name }

    /// Whether `path` (one reading of a client-facing path) is served without credentials.
    func isPublic(_ path: String) -> Bool {
        publicPaths.contains { $0.matches(path) } || path == AppleAppSiteAssociation.path
    }

    /// The pool the next request goes to: the route's URLs in turn, passing over one whose every
    /// address is ejected (or whose host has not resolved) while another has one to dial. The
    /// alternates are the route's other URLs after it, for the request to move on to when every
    /// address of the first fails before a byte of it left; only those that write a request
    /// alike (same path prefix and `Host`), since its head is written for the first.
    func nextPools() -> (pool: UpstreamPool, alternates: [UpstreamPool]) {
        guard pools.count > 1 else { return (pools[0], []) }
        let now = UpstreamAddresses.now
        var chosen = turn
        for step in 0..<pools.count where pools[(turn + step) % pools.count].addresses.hasHealthyAddress(at: now) {
            chosen = (turn + step) % pools.count
            break
        }
        turn = (chosen + 1) % pools.count
        let pool = pools[chosen]
        let alternates = (1..<pools.count).map { pools[(chosen + $0) % pools.count] }.filter { Self.writeAlike(pool, $0) }
        return (pool, alternates)
    }

    private static func writeAlike(_ a: UpstreamPool, _ b: UpstreamPool) -> Bool {
        let x = a.configuration
        let y = b.configuration
        guard x.pathPrefix == y.pathPrefix, x.hostHeaderMode == y.hostHeaderMode else { return false }
        return x.hostHeaderMode == .client || x.hostHeader == y.hostHeader
    }

    /// The target the upstream gets instead of the client's, when the route strips its prefix.
    func upstreamTarget(_ target: String) -> String? {
        definition.stripsPath ? definition.upstreamTarget(target) : nil
    }
}

@available(*, unavailable, message: "loop-owned")
extension ServedRoute: Sendable {}

/// This loop's copy of the routes in force (loop-owned): read again, with pools made for new
/// upstreams, only when a reload swapped a new set in. Pools whose route and URL the new set
/// keeps are kept with their connections; the others are retired (idle connections close, busy
/// ones close when their exchange ends).
struct LoopRoutes {
    private let source: RoutesSource
    private let loop: EventLoop
    private let registry: MetricsRegistry
    private let publicPaths: [PathPrefix]
    private let servesNativeRoutes: Bool
    private var generation = -1
    private var table = RouteTable([])
    private var served: [ServedRoute] = []
    private var hasHostRoutes = false
    /// By route name and upstream key.
    private var pools: [String: UpstreamPool] = [:]

    init(source: RoutesSource, loop: EventLoop, registry: MetricsRegistry, publicPaths: [PathPrefix], servesNativeRoutes: Bool) {
        self.source = source
        self.loop = loop
        self.registry = registry
        self.publicPaths = publicPaths
        self.servesNativeRoutes = servesNativeRoutes
    }

    /// The route for a request with the checked `path` (every reading of it must choose the
    /// same route, see `Choice`).
    mutating func route(for request: HTTPRequestHead, path: DecisionPath) -> Choice {
        if source.generation != generation { refresh() }
        let host = hasHostRoutes ? request.headers.first("Host") : nil
        guard let index = table.route(host: host, path: path.path) else { return .none }
        // A servlet container reads `/admin;x/users` as `/admin/users`: a path whose readings
        // fall under different routes could reach one route's backend under another's rules.
        if path.routed != path.path, table.route(host: host, path: path.routed) != index { return .ambiguous }
        return .route(served[index])
    }

    enum Choice {
        case route(ServedRoute)
        /// No route takes the request (404).
        case none
        /// The path's readings fall under different routes (400).
        case ambiguous
    }

    private mutating func refresh() {
        let (generation, set) = source.routes
        var kept = [String: UpstreamPool]()
        var served = [ServedRoute]()
        for (index, definition) in set.table.routes.enumerated() {
            let routePools = set.upstreams[index].map { upstream in
                let key = definition.name + " " + upstream.key
                let pool = kept[key] ?? pools[key]
                    ?? UpstreamPool(loop: loop, configuration: upstream.configuration, metrics: registry, route: definition.name)
                kept[key] = pool
                return pool
            }
            served.append(ServedRoute(
                definition, isNamed: set.isFromFile, publicPaths: publicPaths, servesNativeRoutes: servesNativeRoutes, pools: routePools))
        }
        for (key, pool) in pools where kept[key] == nil { pool.retire() }
        pools = kept
        self.served = served
        table = set.table
        hasHostRoutes = set.hasHostRoutes
        self.generation = generation
    }
}

@available(*, unavailable, message: "loop-owned")
extension LoopRoutes: Sendable {}
