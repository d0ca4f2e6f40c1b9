public import AppNativeCore
public import AppNativeServer
import Foundation
import Glibc
import Synchronization

/// The live addresses of one upstream URL, shared by every loop's pool: a resolver thread looks
/// the host up every `refreshInterval` (getaddrinfo blocks, so never on a loop) and feeds the
/// answers to the `UpstreamAddressSet` it holds; pools ask it which address to dial next and
/// report refused or timed-out connects. The lock is taken per new connection and per failure,
/// never per request on a pooled connection (pools compare `generation` instead).
public final class UpstreamAddresses: Sendable {
    public let target: UpstreamTarget
    /// How often the host is looked up again (`UPSTREAM_DNS_REFRESH`).
    public let refreshInterval: Duration
    /// How long a refused or timed-out address is skipped (`UPSTREAM_EJECT_SECONDS`).
    public let ejection: Duration
    private let addressSet: Locked<UpstreamAddressSet>
    /// `set.generation`, readable without the lock.
    private let currentGeneration = Atomic<UInt64>(0)
    private let isStarted = Atomic<Bool>(false)
    /// Set by `stop()`: the resolver thread ends at its next wake-up.
    private let isStopped = Atomic<Bool>(false)
    private let observability: Locked<Observability?>

    /// Metrics and the logger, attached once by `start(metrics:logger:)`.
    private struct Observability: Sendable {
        let logger: Logger
        let healthy: Gauge
        let ejected: Gauge
        let lookupFailures: Counter
        let registry: MetricsRegistry
        /// Ejection counters by address label (at most `maxAddressLabels`, then "other").
        var ejections: [String: Counter] = [:]
    }

    /// Distinct address labels on `upstream.ejections` before further addresses count as "other".
    static let maxAddressLabels = 64

    public init(target: UpstreamTarget, refreshInterval: Duration = .seconds(30), ejectFor ejection: Duration = .seconds(10)) {
        self.target = target
        self.refreshInterval = refreshInterval
        self.ejection = ejection
        if let literal = target.literal {
            addressSet = Locked(UpstreamAddressSet(fixed: [literal], ejectFor: ejection))
        } else {
            addressSet = Locked(UpstreamAddressSet(ejectFor: ejection))
        }
        observability = Locked(nil)
        currentGeneration.store(addressSet.withLock { $0.generation }, ordering: .releasing)
    }

    /// Monotonic nanoseconds (the loops' timer clock).
    public static var now: UInt64 {
        var spec = timespec()
        // unsafe: clock_gettime writes one timespec into a local it is given the address of.
        unsafe clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Changes whenever the listed addresses change.
    public var generation: UInt64 { currentGeneration.load(ordering: .acquiring) }

    /// Whether there is an address to dial (the name resolved at least once, or is a literal).
    public var isResolved: Bool { addressSet.withLock { $0.isResolved } }

    public var snapshot: UpstreamAddressSet { addressSet.withLock { $0 } }

    /// The address the next new connection dials, `nil` while the name has never resolved.
    public func nextAddress(at now: UInt64 = UpstreamAddresses.now) -> SocketAddress? {
        let (address, counts) = addressSet.withLock { addressSet in (addressSet.nextAddress(at: now), addressSet.counts(at: now)) }
        // The gauges follow ejections as they end (for an IP literal nothing else updates them).
        publish(counts)
        return address
    }

    /// Whether an address is resolved and not ejected now (a route with several URLs prefers
    /// those that have one).
    public func hasHealthyAddress(at now: UInt64 = UpstreamAddresses.now) -> Bool {
        addressSet.withLock { $0.counts(at: now).healthy > 0 }
    }

    /// How many addresses a failed connect may move on to.
    public var addressCount: Int { addressSet.withLock { $0.addressCount } }

    public func isListed(_ address: SocketAddress) -> Bool {
        addressSet.withLock { $0.isListed(address) }
    }

    /// A connect to `address` was refused or timed out (`reason`): it is skipped for the
    /// ejection time. Logged and counted when it was not ejected already.
    public func eject(_ address: SocketAddress, reason: String, at now: UInt64 = UpstreamAddresses.now) {
        let (isNew, counts) = addressSet.withLock { addressSet in (addressSet.eject(address, at: now), addressSet.counts(at: now)) }
        guard isNew else { return }
        let counter: Counter? = observability.withLock { observability in
            guard var current = observability else { return nil }
            let label = current.ejections[address.description] != nil || current.ejections.count < Self.maxAddressLabels
                ? address.description : "other"
            let counter = current.ejections[label] ?? current.registry.counter(
                MetricCatalogue.upstreamEjections, labels: ["upstream": target.description, "address": label])
            current.ejections[label] = counter
            observability = current
            return counter
        }
        counter?.increment()
        publish(counts)
        logger?.warning(
            "upstream address ejected",
            ["upstream": target.description, "upstream.address": address.description, "reason": reason]
        )
    }

    private var logger: Logger? { observability.withLock { $0?.logger } }

    private func publish(_ counts: (healthy: Int, ejected: Int)) {
        let gauges = observability.withLock { $0.map { ($0.healthy, $0.ejected) } }
        gauges?.0.set(counts.healthy)
        gauges?.1.set(counts.ejected)
    }

    /// Looks the host up once now, on the calling thread (start-up), and attaches metrics and
    /// logging; then, for a name, starts the resolver thread. Returns whether there is an address.
    @discardableResult
    public func start(metrics: MetricsRegistry, logger: Logger) -> Bool {
        guard !isStarted.exchange(true, ordering: .acquiringAndReleasing) else { return isResolved }
        let labels = ["upstream": target.description]
        observability.withLock {
            $0 = Observability(
                logger: logger,
                healthy: metrics.gauge(MetricCatalogue.upstreamAddresses, labels: labels.merging(["state": "healthy"]) { $1 }),
                ejected: metrics.gauge(MetricCatalogue.upstreamAddresses, labels: labels.merging(["state": "ejected"]) { $1 }),
                lookupFailures: metrics.counter(MetricCatalogue.upstreamDNSFailures, labels: labels),
                registry: metrics
            )
        }
        guard target.literal == nil else {
            publish(addressSet.withLock { $0.counts(at: Self.now) })
            return true
        }
        refresh(wasFailing: false)
        let thread = Thread { [self] in self.run() }
        thread.name = "upstream-dns"
        thread.start()
        return isResolved
    }

    /// Ends the resolver thread (a route dropped by a reload): the addresses stay as they are for
    /// the connections still using them, and are no longer looked up.
    public func stop() {
        isStopped.store(true, ordering: .releasing)
    }

    /// The resolver thread: a lookup every refresh interval (every second while the name has
    /// never resolved), and the gauges brought up to date every second (ejections expire).
    private func run() {
        var lastLookup = Self.now
        var isFailing = !isResolved
        let interval = refreshInterval.wholeNanoseconds
        while !isStopped.load(ordering: .acquiring) {
            Thread.sleep(forTimeInterval: 1)
            if isStopped.load(ordering: .acquiring) { return }
            let now = Self.now
            if !isResolved || now - lastLookup >= interval {
                lastLookup = now
                isFailing = refresh(wasFailing: isFailing)
            } else {
                publish(addressSet.withLock { $0.counts(at: now) })
            }
        }
    }

    /// One lookup; returns whether it failed. Failures are logged when they start (and while the
    /// name has never resolved, at most once per refresh interval is enough: the per-request
    /// 502 line names the host too).
    @discardableResult
    func refresh(wasFailing: Bool) -> Bool {
        let answer = HostResolver.resolve(host: target.host, port: target.port)
        return apply(answer, wasFailing: wasFailing)
    }

    /// Feeds one lookup's answer in (tests call it with a made-up answer).
    @discardableResult
    func apply(_ answer: HostResolver.Answer, wasFailing: Bool, at now: UInt64 = UpstreamAddresses.now) -> Bool {
        switch answer {
        case .failed(let reason):
            observability.withLock { $0?.lookupFailures }?.increment()
            let hasAddresses = isResolved
            if !wasFailing {
                logger?.warning(
                    hasAddresses ? "upstream host lookup failed; keeping its last addresses" : "upstream host does not resolve",
                    ["upstream": target.description, "upstream.host": target.host, "error": reason]
                )
            }
            publish(addressSet.withLock { $0.counts(at: now) })
            return true
        case .addresses(let addresses):
            let (change, generation, counts, listed) = addressSet.withLock { addressSet in
                let change = addressSet.resolved(addresses)
                return (change, addressSet.generation, addressSet.counts(at: now), addressSet.entries.map(\.address.description))
            }
            currentGeneration.store(generation, ordering: .releasing)
            publish(counts)
            if !change.isEmpty {
                logger?.info(
                    "upstream addresses changed",
                    [
                        "upstream": target.description,
                        "upstream.addresses": listed.joined(separator: " "),
                        "added": change.added.map(\.description).joined(separator: " "),
                        "removed": change.removed.map(\.description).joined(separator: " "),
                    ]
                )
            }
            return false
        }
    }
}
