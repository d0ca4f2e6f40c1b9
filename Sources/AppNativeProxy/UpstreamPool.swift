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
    /// How long a pooled connection may stay idle before it is closed.
    private let idleTimeoutNanoseconds: UInt64
    /// Receive buffer shared by this loop's upstream connections.
    var scratch = [UInt8](repeating: 0, count: 64 * 1024)
    /// Idle connections, most recently used last (LIFO keeps the warmest one).
    private var idle: [UpstreamConnection] = []
    private(set) var openCount = 0
    private let metrics: PoolMetrics
    /// The addresses' generation the idle list was last checked against: when it moves, idle
    /// connections to addresses no longer listed are retired.
    private var checkedGeneration: UInt64
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
    /// Set by `retire()`: the route was reloaded away; connections close instead of idling.
    private var isRetired = false

    /// The route was dropped or changed by a reload: idle connections close now, and those still
    /// serving an exchange close when it ends instead of returning to the pool.
    public func retire() {
        guard !isRetired else { return }
        isRetired = true
        loop.cancel(retirementCheck)
        while let connection = idle.popLast() {
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
        idleTimeoutNanoseconds = configuration.idleTimeout.wholeNanoseconds
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
        checkedGeneration = configuration.addresses.generation
        if configuration.target.literal == nil { loop.arm(retirementCheck, after: Self.retirementCheckInterval) }
    }

    public var addresses: UpstreamAddresses { configuration.addresses }

    private func periodicRetirementCheck() {
        guard !isRetired else { return }
        retireUnlisted()
        loop.arm(retirementCheck, after: Self.retirementCheckInterval)
    }

    /// Closes idle connections whose address the latest answer no longer lists (once per change).
    private func retireUnlisted() {
        let generation = configuration.addresses.generation
        guard generation != checkedGeneration else { return }
        checkedGeneration = generation
        let listed = configuration.addresses.snapshot
        for connection in idle where !listed.isListed(connection.address) {
            metrics.retired.increment()
            connection.close()
        }
    }

    /// An idle pooled connection, if any (already connected).
    func takeIdle() -> UpstreamConnection? {
        if configuration.addresses.generation != checkedGeneration { retireUnlisted() }
        while let connection = idle.popLast() {
            metrics.idle.add(-1)
            if !connection.isClosed {
                metrics.reuses.increment()
                return connection
            }
        }
        return nil
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
        openCount += 1
        metrics.open.add(1)
        metrics.connects.increment()
        return connection
    }

    func giveBack(_ connection: UpstreamConnection) {
        guard !isRetired else {
            metrics.retired.increment()
            connection.close()
            return
        }
        if configuration.addresses.generation != checkedGeneration { retireUnlisted() }
        if configuration.addresses.generation != connection.addressGeneration {
            guard configuration.addresses.isListed(connection.address) else {
                metrics.retired.increment()
                connection.close()
                return
            }
            connection.addressGeneration = configuration.addresses.generation
        }
        guard idle.count < configuration.maxIdleConnectionsPerLoop else {
            connection.close()
            return
        }
        connection.idleSince = loop.nowNanoseconds
        connection.armIdleExpiry(at: connection.idleSince + idleTimeoutNanoseconds)
        idle.append(connection)
        metrics.idle.add(1)
    }

    func connectionClosed(_ connection: UpstreamConnection) {
        openCount -= 1
        metrics.open.add(-1)
        if let index = idle.firstIndex(where: { $0 === connection }) {
            idle.remove(at: index)
            metrics.idle.add(-1)
        }
    }
}

@available(*, unavailable, message: "loop-owned")
extension UpstreamPool: Sendable {}
