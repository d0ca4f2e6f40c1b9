import AppNativeCore
import AppNativeProxy
import Synchronization

/// The routes in force, shared by every loop, and re-read from `ROUTES_FILE` on `SIGHUP`
/// (`reload()`).
///
/// A reload builds the whole new set first and swaps it in at once; a file that cannot be read,
/// checked or made ready leaves the routes in force unchanged. Each loop keeps its own copy
/// (`LoopRoutes`) and takes the lock only when `generation` says a reload happened, as the
/// access policy does (`AccessPolicySource`).
final class RoutesSource: Sendable {
    /// `ROUTES_FILE`; `nil` when `UPSTREAM_URL` alone is the one route.
    let path: String?
    private let catchAll: UpstreamConfiguration?
    private let settings: UpstreamSettings
    private let current: Locked<(generation: Int, routes: RouteSet)>
    /// Bumped after each swap; a loop whose copy is older reads `current` again.
    private let swaps = Atomic<Int>(0)
    /// Metrics and the logger for the resolvers of routes a reload adds (set by `start`).
    private let observability = Locked<(metrics: MetricsRegistry, logger: Logger)?>(nil)

    init(path: String?, routes: RouteSet, catchAll: UpstreamConfiguration?, settings: UpstreamSettings) {
        self.path = path
        self.catchAll = catchAll
        self.settings = settings
        current = Locked((0, routes))
    }

    /// The set in force and its generation.
    var routes: (generation: Int, routes: RouteSet) { current.withLock { $0 } }

    /// Changes with every swap (read without the lock).
    var generation: Int { swaps.load(ordering: .acquiring) }

    /// Whether every route has an upstream whose host resolved (`/readyz`).
    var isResolved: Bool { current.withLock { $0.routes }.isResolved }

    /// Looks every route's hosts up once and starts their resolvers.
    func start(metrics: MetricsRegistry, logger: Logger) {
        observability.withLock { $0 = (metrics, logger) }
        for addresses in routes.routes.addresses { addresses.start(metrics: metrics, logger: logger) }
    }

    /// Reads and checks the file again, makes its upstreams ready (a URL kept with the same
    /// options keeps its addresses and pools) and swaps the new set in whole. Resolvers of hosts
    /// no route uses any more stop.
    ///
    /// - Throws: every problem of the file; the routes in force are kept.
    func reload() throws(RoutesFile.Invalid) {
        guard let path else { return }
        let definitions = try RoutesFile.load(path: path).get()
        let previous = routes.routes
        let next = try RouteSet.build(definitions, catchAll: catchAll, settings: settings, reusing: previous).get()
        if let (metrics, logger) = observability.withLock({ $0 }) {
            for addresses in next.addresses { addresses.start(metrics: metrics, logger: logger) }
        }
        let generation = current.withLock { state in
            state = (state.generation + 1, next)
            return state.generation
        }
        swaps.store(generation, ordering: .releasing)
        let kept = Set(next.addresses.map(ObjectIdentifier.init))
        for addresses in previous.addresses where !kept.contains(ObjectIdentifier(addresses)) { addresses.stop() }
    }
}
