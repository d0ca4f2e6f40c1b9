import AppNativeCrypto

/// Timing parameters of the key cache (contract/auth.md §6).
public struct JWKSCacheConfiguration: Sendable {
    /// Age after which cached keys are refreshed in the background.
    public var timeToLive: Duration = .seconds(3600)
    /// Minimum interval between two reload attempts, whatever caused them.
    public var minimumRefreshInterval: Duration = .seconds(60)
    /// Shorter retry interval while the cache is empty (capped by `minimumRefreshInterval`).
    public var emptyCacheRetryInterval: Duration = .seconds(5)
    /// Budget for one whole reload: download and parse.
    public var reloadTimeout: Duration = .seconds(10)

    public init() {}
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

    /// `mayStartReload` of contract/auth.md §6; starting marks the attempt.
    private mutating func startReloadIfAllowed(now: Duration) -> Bool {
        guard !isReloading else { return false }
        let wait = keys.isEmpty
            ? min(configuration.minimumRefreshInterval, configuration.emptyCacheRetryInterval)
            : configuration.minimumRefreshInterval
        if let lastAttempt, now - lastAttempt < wait { return false }
        lastAttempt = now
        isReloading = true
        return true
    }

    /// `get(kid)` of contract/auth.md §6, up to the point where the caller may have to wait.
    mutating func lookup(_ kid: String, now: Duration) -> Decision {
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

    /// Explicit refresh (start-up, readiness): starts a reload when the shared rules allow it.
    mutating func requestReload(now: Duration) -> Bool {
        startReloadIfAllowed(now: now)
    }

    /// Registers a caller waiting for the reload in flight; `false` when it already finished.
    mutating func addWaiter(_ continuation: CheckedContinuation<Void, Never>) -> Bool {
        guard isReloading else { return false }
        waiters.append(continuation)
        return true
    }

    /// Ends the reload. Success replaces the whole map; failure keeps the previous keys untouched.
    /// Returns the waiters to resume (outside the lock) and, on success, the kids that disappeared.
    mutating func finishReload(
        with newKeys: [String: RSAPublicKey]?,
        startedAt: Duration
    ) -> (waiters: [CheckedContinuation<Void, Never>], removedKids: Set<String>) {
        precondition(isReloading, "finishReload without a reload in flight")
        isReloading = false
        var removed = Set<String>()
        if let newKeys {
            removed = Set(keys.keys).subtracting(newKeys.keys)
            keys = newKeys
            fetchedAt = startedAt
        }
        let resumed = waiters
        waiters = []
        return (resumed, removed)
    }
}
