import AppNativeCore
import AppNativeCrypto

/// Timing parameters of the key cache (contract/auth.md §6).
public struct JWKSCacheConfiguration: Sendable {
    /// Age after which cached keys are reloaded: on schedule by the background refresher, and on
    /// the next lookup when no refresher runs.
    public var timeToLive: Duration = .seconds(3600)
    /// Minimum interval between two on-demand reloads (stale keys, unknown `kid`, `refresh()`),
    /// and the shortest wait of the refresher after a failed reload while keys are cached.
    public var minimumRefreshInterval: Duration = .seconds(60)
    /// The refresher's wait after the first failed load while no key is cached; it doubles with
    /// every further failure up to `maximumRetryDelay`, with jitter.
    public var initialRetryDelay: Duration = .seconds(1)
    /// The longest wait between two loads while no key is cached (before jitter).
    public var maximumRetryDelay: Duration = .seconds(30)
    /// Budget for one whole reload: download and parse.
    public var reloadTimeout: Duration = .seconds(10)

    public init() {}

    /// The refresher's wait after `failures` consecutive failed reloads (1-based):
    /// `min(maximumRetryDelay, initialRetryDelay·2^(failures−1))` scaled by `0.5 + jitter/2`
    /// ("equal jitter": replicas that failed together spread out, yet never retry at once).
    ///
    /// - Parameter jitter: a number in `0..<1` (random in production, fixed in tests).
    /// A count below 1 is read as 1; the result stays within a day, whatever the settings.
    public func retryDelay(afterFailures failures: Int, jitter: Double) -> Duration {
        let base = initialRetryDelay.seconds * Double(1 << min(max(failures, 1) - 1, 30))
        let capped = max(0, min(base, maximumRetryDelay.seconds, 86_400))
        let factor = 0.5 + min(max(jitter, 0), 1) / 2
        return .nanoseconds(Int64((capped * factor * 1e9).rounded()))
    }
}

/// The key cache as a value-type state machine (docs/style.md §5): inputs return decisions,
/// and `JWKSCache` performs them outside the lock. Tests drive it directly.
struct JWKSCacheState: Sendable {
    let configuration: JWKSCacheConfiguration
    private(set) var keys: [String: RSAPublicKey] = [:]
    /// Monotonic start time of the reload that produced `keys`.
    private(set) var fetchedAt: Duration?
    /// Monotonic time of the last reload attempt, successful or not.
    private(set) var lastAttempt: Duration?
    private(set) var isReloading = false
    /// Reloads that failed since the last success: the refresher's backoff exponent.
    private(set) var consecutiveFailures = 0
    /// When the background refresher reloads next (monotonic); `nil`: at once.
    private(set) var nextScheduledReload: Duration?
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(configuration: JWKSCacheConfiguration) {
        self.configuration = configuration
    }

    enum Decision: Sendable {
        /// Use this key; when `startsReload` the caller launches a background reload and does not wait.
        case use(RSAPublicKey, startsReload: Bool)
        /// Wait for the reload in flight; when `startsReload` the caller launches it first.
        case wait(startsReload: Bool)
        case unknownKid
        case unavailable
    }

    /// What the background refresher does next.
    enum RefresherStep: Sendable, Equatable {
        /// Run a reload (already marked as started).
        case reload
        /// Wait for the reload in flight, then ask again.
        case join
        /// Nothing due yet: ask again after this long.
        case sleep(Duration)
    }

    /// `mayStartReload` of contract/auth.md §6; starting marks the attempt.
    private mutating func startReloadIfAllowed(now: Duration) -> Bool {
        guard !isReloading else { return false }
        let wait = keys.isEmpty ? configuration.initialRetryDelay : configuration.minimumRefreshInterval
        if let lastAttempt, now - lastAttempt < wait { return false }
        markReloadStarted(now: now)
        return true
    }

    private mutating func markReloadStarted(now: Duration) {
        lastAttempt = now
        isReloading = true
    }

    /// `get(kid)` of contract/auth.md §6, up to the point where the caller may have to wait.
    ///
    /// With no key cached nobody waits: the answer is `.unavailable` at once, and loading is the
    /// background refresher's job. Otherwise a download stuck until the reload timeout would hold
    /// every request for that long, only to answer 503 anyway.
    mutating func lookup(_ kid: String, now: Duration) -> Decision {
        if keys.isEmpty { return .unavailable }
        if let key = keys[kid] {
            let isStale = fetchedAt.map { now - $0 >= configuration.timeToLive } ?? true
            return .use(key, startsReload: isStale && startReloadIfAllowed(now: now))
        }
        if isReloading { return .wait(startsReload: false) }
        if startReloadIfAllowed(now: now) { return .wait(startsReload: true) }
        return resolveWithoutWaiting(kid)
    }

    /// The answer once no reload is pending for this caller.
    func resolveWithoutWaiting(_ kid: String) -> Decision {
        if let key = keys[kid] { return .use(key, startsReload: false) }
        return keys.isEmpty ? .unavailable : .unknownKid
    }

    /// Explicit refresh (a one-shot command, tests): starts a reload when the shared rules allow it.
    mutating func requestReload(now: Duration) -> Bool {
        startReloadIfAllowed(now: now)
    }

    /// The background refresher's next step. A reload it starts bypasses the on-demand rate
    /// limit (its own schedule is bounded by the backoff and the TTL) but still counts as an
    /// attempt, so an unknown `kid` right after it waits out the minimum interval.
    mutating func refresherStep(now: Duration) -> RefresherStep {
        if isReloading { return .join }
        if let next = nextScheduledReload, now < next { return .sleep(next - now) }
        markReloadStarted(now: now)
        return .reload
    }

    /// Registers a caller waiting for the reload in flight; `false` when it already finished.
    mutating func addWaiter(_ continuation: CheckedContinuation<Void, Never>) -> Bool {
        guard isReloading else { return false }
        waiters.append(continuation)
        return true
    }

    /// Ends the reload. Success replaces the whole map; failure keeps the previous keys untouched.
    /// Either way it schedules the refresher's next reload: the TTL after a success; after a
    /// failure the capped backoff, and never sooner than the minimum interval while keys are
    /// cached (they keep working, so there is no hurry).
    /// Returns the waiters to resume (outside the lock) and, on success, the kids that disappeared.
    ///
    /// - Parameters:
    ///   - now: when the reload ended; a failure's backoff counts from here.
    ///   - jitter: a number in `0..<1` for the backoff.
    mutating func finishReload(
        with newKeys: [String: RSAPublicKey]?,
        startedAt: Duration,
        now: Duration,
        jitter: Double
    ) -> (waiters: [CheckedContinuation<Void, Never>], removedKids: Set<String>) {
        precondition(isReloading, "finishReload without a reload in flight")
        isReloading = false
        var removed = Set<String>()
        if let newKeys {
            removed = Set(keys.keys).subtracting(newKeys.keys)
            keys = newKeys
            fetchedAt = startedAt
            consecutiveFailures = 0
            nextScheduledReload = startedAt + configuration.timeToLive
        } else {
            consecutiveFailures += 1
            var next = now + configuration.retryDelay(afterFailures: consecutiveFailures, jitter: jitter)
            if !keys.isEmpty { next = max(next, startedAt + configuration.minimumRefreshInterval) }
            nextScheduledReload = next
        }
        let resumed = waiters
        waiters = []
        return (resumed, removed)
    }
}
