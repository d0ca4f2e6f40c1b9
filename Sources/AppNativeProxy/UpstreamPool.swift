public import AppNativeCore
public import AppNativeServer
internal import CAppNativeLinux
import Glibc

/// Keep-alive connections to the upstream, one pool per event loop (loop-owned, no locks).
public final class UpstreamPool {
    let loop: EventLoop
    public let configuration: UpstreamConfiguration
    /// `configuration`'s connect and response timeouts in nanoseconds, converted once (armed on
    /// every request).
    let connectTimeoutNanoseconds: UInt64
    let responseTimeoutNanoseconds: UInt64
    /// Receive buffer shared by this loop's upstream connections.
    var scratch = [UInt8](repeating: 0, count: 64 * 1024)
    /// The idle list, the limits and the route's retirement; every change goes through it.
    private var state: UpstreamPoolState<UpstreamConnection>
    var openCount: Int { state.openCount }
    private let metrics: PoolMetrics
    /// Checks the generation now and then, so idle connections to a dropped address are retired
    /// even when no request comes (weak: it fires once a second, and must not keep a pool alive).
    private lazy var retirementCheck = loop.makeTimer { [weak self] in self?.periodicRetirementCheck() }
    private static let retirementCheckInterval: Duration = .seconds(1)

    struct PoolMetrics: Sendable {
        let open: Gauge
        let idle: Gauge
        let connects: Counter
        let reuses: Counter
        let retired: Counter
        /// By status class, 1xx to 5xx.
        let responses: [Counter]
    }

    /// The route this pool serves, as metrics and logs name it.
    public let route: String

    /// The route was dropped or changed by a reload: idle connections close now, and those still
    /// serving an exchange close when it ends instead of returning to the pool.
    public func retire() {
        guard !state.isRetired else { return }
        loop.cancel(retirementCheck)
        close(retiring: state.retire())
    }

    /// Closes connections the state dropped from the idle list as retired.
    private func close(retiring connections: [UpstreamConnection]) {
        for connection in connections {
            metrics.idle.add(-1)
            metrics.retired.increment()
            connection.close()
        }
    }

    /// Counts the status a client got for an exchange forwarded through this pool.
    func countResponse(status: Int) {
        if (100...599).contains(status) { metrics.responses[status / 100 - 1].increment() }
    }

    /// - Parameter route: the route this pool serves (`ROUTES_FILE`'s name, `default` for
    ///   `UPSTREAM_URL`), as its metrics name it.
    public init(loop: EventLoop, configuration: UpstreamConfiguration, metrics: MetricsRegistry, route: String = "default") {
        self.loop = loop
        self.route = route
        connectTimeoutNanoseconds = configuration.connectTimeout.wholeNanoseconds
        responseTimeoutNanoseconds = configuration.responseTimeout.wholeNanoseconds
        state = UpstreamPoolState(
            maxIdle: configuration.maxIdleConnectionsPerLoop,
            idleTimeoutNanoseconds: configuration.idleTimeout.wholeNanoseconds,
            generation: configuration.addresses.generation
        )
        self.configuration = configuration
        let labels = ["loop": String(loop.index), "route": route]
        let routeLabel = ["route": route]
        self.metrics = PoolMetrics(
            open: metrics.gauge(MetricCatalogue.upstreamPoolOpen, labels: labels),
            idle: metrics.gauge(MetricCatalogue.upstreamPoolIdle, labels: labels),
            connects: metrics.counter(MetricCatalogue.upstreamConnects, labels: routeLabel),
            reuses: metrics.counter(MetricCatalogue.upstreamReuses, labels: routeLabel),
            retired: metrics.counter(MetricCatalogue.upstreamRetired, labels: routeLabel),
            responses: (1...5).map { metrics.counter(MetricCatalogue.upstreamResponses, labels: ["route": route, "status": "\($0)xx"]) }
        )
        if configuration.target.literal == nil { loop.arm(retirementCheck, after: Self.retirementCheckInterval) }
    }

    public var addresses: UpstreamAddresses { configuration.addresses }

    private func periodicRetirementCheck() {
        guard !state.isRetired else { return }
        var retiring: [UpstreamConnection] = []
        let listed = configuration.addresses.snapshot
        state.retireUnlisted(generation: configuration.addresses.generation, isListed: { listed.isListed($0) }, into: &retiring)
        close(retiring: retiring)
        loop.arm(retirementCheck, after: Self.retirementCheckInterval)
    }

    /// An idle pooled connection, if any (already connected).
    func takeIdle() -> UpstreamConnection? {
        var retiring: [UpstreamConnection] = []
        let addresses = configuration.addresses
        let connection = state.takeIdle(generation: addresses.generation, isListed: { addresses.isListed($0) }, retiring: &retiring)
        if !retiring.isEmpty { close(retiring: retiring) }
        guard let connection else { return nil }
        metrics.idle.add(-1)
        metrics.reuses.increment()
        return connection
    }

    /// Why no new connection could be started.
    enum ConnectError: Error {
        /// The host has never resolved: there is no address to dial.
        case unresolved
        /// Every address failed (refused at once here, or earlier in this exchange).
        case system(SystemCallError)
    }

    /// Starts a new non-blocking connection to the next address in turn, skipping `excluded`
    /// (addresses this exchange already failed on) while others are listed; a connect refused at
    /// once ejects its address and moves on. The delegate hears `upstreamConnected` or a failure.
    func connect(excluding excluded: [SocketAddress] = []) throws(ConnectError) -> UpstreamConnection {
        let addresses = configuration.addresses
        var failed = excluded
        var lastError: SystemCallError?
        for _ in 0..<max(1, addresses.addressCount) {
            guard let address = addresses.nextAddress(at: loop.nowNanoseconds) else { throw .unresolved }
            if failed.contains(address) { continue }
            do {
                return try connect(to: address)
            } catch {
                lastError = error
                guard error.errno == ECONNREFUSED || error.errno == ENETUNREACH || error.errno == EHOSTUNREACH else {
                    throw .system(error)
                }
                addresses.eject(address, reason: "refused", at: loop.nowNanoseconds)
                failed.append(address)
            }
        }
        throw .system(lastError ?? SystemCallError(call: "connect", errno: ECONNREFUSED))
    }

    private func connect(to address: SocketAddress) throws(SystemCallError) -> UpstreamConnection {
        let fd = appnative_socket_stream(address.family == .inet4 ? AF_INET : AF_INET6)
        if fd < 0 { throw SystemCallError(call: "socket", errno: appnative_errno()) }
        _ = appnative_set_nodelay(fd)
        let result = address.connect(fd)
        if result < 0 && appnative_errno() != appnative_einprogress {
            let code = appnative_errno()
            Glibc.close(fd)
            throw SystemCallError(call: "connect", errno: code)
        }
        let transport: any ConnectionTransport
        if let tls = configuration.tls {
            guard let session = tls.makeTransport(fd: fd) else {
                Glibc.close(fd)
                throw SystemCallError(call: "SSL_new", errno: 0)
            }
            transport = session
        } else {
            transport = PlainTransport(fd: fd)
        }
        let connection = UpstreamConnection(fd: fd, address: address, transport: transport, pool: self)
        do {
            try loop.register(fd, events: [.readable, .writable, .peerClosed], handler: connection)
        } catch {
            Glibc.close(fd)
            throw error
        }
        state.opened()
        metrics.open.add(1)
        metrics.connects.increment()
        return connection
    }

    /// An exchange ended and `connection` can carry another: kept idle, or closed.
    func giveBack(_ connection: UpstreamConnection) {
        var retiring: [UpstreamConnection] = []
        let addresses = configuration.addresses
        let generation = addresses.generation
        let action = state.giveBack(
            connection,
            connectionGeneration: connection.addressGeneration,
            generation: generation,
            isListed: { addresses.isListed($0) },
            now: loop.nowNanoseconds,
            retiring: &retiring
        )
        if !retiring.isEmpty { close(retiring: retiring) }
        switch action {
        case .keep(let expiry):
            connection.addressGeneration = generation
            connection.becameIdle(until: expiry)
            metrics.idle.add(1)
        case .retire:
            metrics.retired.increment()
            connection.close()
        case .close:
            connection.close()
        }
    }

    func connectionClosed(_ connection: UpstreamConnection) {
        metrics.open.add(-1)
        if state.closed(connection) { metrics.idle.add(-1) }
    }
}

@available(*, unavailable, message: "loop-owned")
extension UpstreamPool: Sendable {}
