public import AppNativeCore
public import AppNativeCrypto

/// The tenant's signing keys, cached and refreshed by the rules of contract/auth.md §6.
///
/// - One reload at a time; callers that need it join the one in flight.
/// - Every cause of a reload (stale keys, unknown `kid`, explicit refresh) shares the minimum
///   refresh interval, so a flood of unknown `kid`s costs at most one download per interval.
/// - Stale keys are served while a background reload runs; keys survive failed reloads forever.
/// - A reload is bounded by a whole-operation timeout, and a waiting caller's cancellation never
///   cancels the reload others may be waiting for (it runs in its own task).
public final class JWKSCache: Sendable {
    private let fetcher: any JWKSFetching
    private let time: any TimeSource
    private let logger: Logger
    private let state: Locked<JWKSCacheState>
    private let onKeysRemoved: @Sendable (Set<String>) -> Void
    private let reloads: Counter
    private let reloadFailures: Counter
    private let keyCount: Gauge
    private let lastSuccessWall: Gauge

    /// - Parameters:
    ///   - onKeysRemoved: called after a successful reload with the `kid`s that disappeared, so
    ///     caches of tokens verified with those keys can drop them.
    public init(
        fetcher: any JWKSFetching,
        configuration: JWKSCacheConfiguration = .init(),
        time: any TimeSource = SystemTimeSource(),
        logger: Logger = Logger(),
        metrics: MetricsRegistry = .shared,
        onKeysRemoved: @escaping @Sendable (Set<String>) -> Void = { _ in }
    ) {
        self.fetcher = fetcher
        self.time = time
        self.logger = logger.with(["component": "jwks"])
        self.onKeysRemoved = onKeysRemoved
        state = Locked(JWKSCacheState(configuration: configuration))
        reloads = metrics.counter("jwks.refresh", labels: ["outcome": "success"], help: "JWKS reloads by outcome")
        reloadFailures = metrics.counter("jwks.refresh", labels: ["outcome": "failure"], help: "JWKS reloads by outcome")
        keyCount = metrics.gauge("jwks.keys", help: "Signing keys in the JWKS cache")
        lastSuccessWall = metrics.gauge(
            "jwks.last_success_timestamp_seconds",
            help: "Wall time of the last successful JWKS reload"
        )
    }

    /// The outcome of a lookup that must not wait (event-loop fast path).
    public enum ImmediateLookup: Sendable {
        case key(RSAPublicKey)
        /// The caller must `await key(for:)`: a reload is in flight or was just started for this `kid`.
        case mustWait
        case failure(AuthError)
    }

    /// Looks a key up without waiting. A stale hit starts a background reload and returns the key.
    public func immediateKey(for kid: String) -> ImmediateLookup {
        let decision = state.withLock { $0.lookup(kid, now: time.monotonic) }
        switch decision {
        case .use(let key, let startsReload):
            if startsReload { launchReload() }
            return .key(key)
        case .wait(let startsReload):
            if startsReload { launchReload() }
            return .mustWait
        case .unknownKid: return .failure(Self.unknownKid)
        case .unavailable: return .failure(Self.unavailable)
        }
    }

    /// The key for `kid`, waiting for a reload when the `kid` is not cached and a reload is allowed.
    ///
    /// - Throws: `.unknownKid` (401) when the key set lacks the `kid`, `.keysUnavailable` (503)
    ///   when the key set is empty.
    public func key(for kid: String) async throws(AuthError) -> RSAPublicKey {
        switch immediateKey(for: kid) {
        case .key(let key): return key
        case .failure(let error): throw error
        case .mustWait: break
        }
        await waitForReload()
        switch state.withLock({ $0.resolveWithoutWaiting(kid) }) {
        case .use(let key, _): return key
        case .unknownKid: throw Self.unknownKid
        default: throw Self.unavailable
        }
    }

    /// Starts a reload if the shared rate limit allows it and waits for the one in flight.
    /// Returns whether the cache holds keys afterwards (readiness).
    @discardableResult
    public func refresh() async -> Bool {
        if state.withLock({ $0.requestReload(now: time.monotonic) }) { launchReload() }
        await waitForReload()
        return isLoaded
    }

    /// Whether at least one key is cached.
    public var isLoaded: Bool { state.withLock { !$0.keys.isEmpty } }

    /// Seconds since the keys in use were fetched; `nil` before the first successful reload.
    public var age: Duration? {
        let now = time.monotonic
        return state.withLock { $0.fetchedAt.map { now - $0 } }
    }

    /// Whether a reload is in flight.
    public var isReloading: Bool { state.withLock { $0.isReloading } }

    /// The `kid`s currently cached.
    public var keyIDs: Set<String> { state.withLock { Set($0.keys.keys) } }

    private func waitForReload() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isWaiting = state.withLock { $0.addWaiter(continuation) }
            if !isWaiting { continuation.resume() }
        }
    }

    private func launchReload() {
        let startedAt = time.monotonic
        let timeout = state.withLock { $0.configuration.reloadTimeout }
        // Unstructured on purpose: the reload outlives any one caller and their cancellation.
        Task { [self] in
            var newKeys: [String: RSAPublicKey]?
            do {
                let keySet = try await withDeadline(timeout, time: time) { [fetcher] in
                    try JSONWebKeySet.parse(try await fetcher.fetchDocument())
                }
                newKeys = keySet.keys
            } catch {
                // The error describes the transport or parse failure, never key material.
                logger.warning("JWKS reload failed; keeping previous keys", ["error": "\(error)"])
            }
            let (waiters, removed) = state.withLock { $0.finishReload(with: newKeys, startedAt: startedAt) }
            if let newKeys {
                reloads.increment()
                keyCount.set(newKeys.count)
                lastSuccessWall.set(Int(time.wallSeconds))
                logger.info("JWKS reloaded", ["jwks.keys": "\(newKeys.count)"])
                if !removed.isEmpty { onKeysRemoved(removed) }
            } else {
                reloadFailures.increment()
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    private static let unknownKid = AuthError(.unknownKid, "no key with this kid in the tenant JWKS")
    private static let unavailable = AuthError(.keysUnavailable, "the tenant JWKS could not be loaded")
}
