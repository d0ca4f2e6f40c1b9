public import AppNativeCore
public import AppNativeCrypto

/// The tenant's signing keys, cached and refreshed by the rules of contract/auth.md §6.
///
/// - A background refresher (`startRefreshing()`) loads the keys, retries a failed load with
///   capped exponential backoff and jitter until keys are cached, then reloads them every
///   `timeToLive`. While no key is cached a lookup answers "keys unavailable" at once: nobody
///   waits for a download that may take until the reload timeout.
/// - One reload at a time; callers that need it join the one in flight.
/// - Every on-demand reload (stale keys, unknown `kid`, explicit refresh) shares the minimum
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
    private let jitter: @Sendable () -> Double
    /// The background refresher once started; cancelled when the cache goes away.
    private let refresher = Locked<(isStarted: Bool, task: Task<Void, Never>?)>((false, nil))
    private let reloads: Counter
    private let reloadFailures: Counter
    private let keyCount: Gauge
    private let lastSuccessWall: Gauge

    /// - Parameters:
    ///   - onKeysRemoved: called after a successful reload with the `kid`s that disappeared, so
    ///     caches of tokens verified with those keys can drop them.
    ///   - jitter: random numbers in `0..<1` for the refresher's backoff (fixed in tests).
    public init(
        fetcher: any JWKSFetching,
        configuration: JWKSCacheConfiguration = .init(),
        time: any TimeSource = SystemTimeSource(),
        logger: Logger = Logger(),
        metrics: MetricsRegistry = .shared,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        onKeysRemoved: @escaping @Sendable (Set<String>) -> Void = { _ in }
    ) {
        self.fetcher = fetcher
        self.time = time
        self.logger = logger.with(["component": "jwks"])
        self.onKeysRemoved = onKeysRemoved
        self.jitter = jitter
        state = Locked(JWKSCacheState(configuration: configuration))
        reloads = metrics.counter(MetricCatalogue.jwksRefreshes, labels: ["outcome": "success"])
        reloadFailures = metrics.counter(MetricCatalogue.jwksRefreshes, labels: ["outcome": "failure"])
        keyCount = metrics.gauge(MetricCatalogue.jwksKeys)
        lastSuccessWall = metrics.gauge(MetricCatalogue.jwksLastSuccess)
    }

    deinit {
        refresher.withLock { $0.task }?.cancel()
    }

    /// The outcome of a lookup that must not wait (event-loop fast path).
    public enum ImmediateLookup: Sendable {
        case key(RSAPublicKey)
        /// The caller must `await key(for:)`: a reload is in flight or was just started for this `kid`.
        case mustWait
        case failure(AuthError)
    }

    /// Looks a key up without waiting. A stale hit starts a background reload and returns the key.
    /// With no key cached the answer is `.keysUnavailable` at once; the lookup starts the
    /// background refresher if nobody did, so a library user that never called
    /// `startRefreshing()` still gets keys.
    public func immediateKey(for kid: String) -> ImmediateLookup {
        let now = time.monotonic
        let decision = state.withLock { $0.lookup(kid, now: now) }
        switch decision {
        case .use(let key, let startsReload):
            if startsReload { launchReload(startedAt: now) }
            return .key(key)
        case .wait(let startsReload):
            if startsReload { launchReload(startedAt: now) }
            return .mustWait
        case .unknownKid: return .failure(Self.unknownKid)
        case .unavailable:
            startRefreshing()
            return .failure(Self.unavailable)
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
        await waitForReloadInFlight()
        switch state.withLock({ $0.resolveWithoutWaiting(kid) }) {
        case .use(let key, _): return key
        case .unknownKid: throw Self.unknownKid
        default: throw Self.unavailable
        }
    }

    /// Starts a reload if the shared rate limit allows it and waits for the one in flight (a
    /// one-shot command that verifies one token calls this first).
    /// Returns whether the cache holds keys afterwards.
    @discardableResult
    public func refresh() async -> Bool {
        let now = time.monotonic
        if state.withLock({ $0.requestReload(now: now) }) { launchReload(startedAt: now) }
        await waitForReloadInFlight()
        return isLoaded
    }

    /// Starts the background refresher; later calls do nothing. It downloads at once, retries a
    /// failed load after `initialRetryDelay`, doubling up to `maximumRetryDelay` (with jitter),
    /// and once keys are cached reloads them every `timeToLive` (a failure then is retried no
    /// sooner than `minimumRefreshInterval`). The first download is under way when this returns,
    /// so `waitForReloadInFlight()` right after it waits for that download.
    public func startRefreshing() {
        let isFirst = refresher.withLock { refresher -> Bool in
            if refresher.isStarted { return false }
            refresher.isStarted = true
            return true
        }
        guard isFirst else { return }
        let now = time.monotonic
        let firstStep = state.withLock { $0.refresherStep(now: now) }
        // Weak: the loop must not keep the cache alive; `deinit` cancels it, which ends its sleep.
        let task = Task { [weak self, time] in
            var step: (JWKSCacheState.RefresherStep, startedAt: Duration)? = (firstStep, now)
            while !Task.isCancelled {
                guard let current = step ?? self?.nextRefresherStep() else { return }
                step = nil
                switch current.0 {
                case .reload: await self?.performReload(startedAt: current.startedAt)
                case .join: await self?.waitForReloadInFlight()
                case .sleep(let delay):
                    do {
                        try await time.sleep(for: delay)
                    } catch {
                        return
                    }
                }
            }
        }
        refresher.withLock { $0.task = task }
    }

    private func nextRefresherStep() -> (JWKSCacheState.RefresherStep, startedAt: Duration) {
        let now = time.monotonic
        return (state.withLock { $0.refresherStep(now: now) }, now)
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

    /// Returns once no reload is in flight (at once when none is).
    public func waitForReloadInFlight() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isWaiting = state.withLock { $0.addWaiter(continuation) }
            if !isWaiting { continuation.resume() }
        }
    }

    private func launchReload(startedAt: Duration) {
        // Unstructured on purpose: the reload outlives any one caller and their cancellation.
        Task { [self] in await performReload(startedAt: startedAt) }
    }

    /// Downloads and parses the key set within the reload timeout, then ends the reload the
    /// state machine marked as started at `startedAt`.
    private func performReload(startedAt: Duration) async {
        let timeout = state.withLock { $0.configuration.reloadTimeout }
        var newKeys: [String: RSAPublicKey]?
        var failure: (any Error)?
        do {
            let keySet = try await withDeadline(timeout, time: time) { [fetcher] in
                try JSONWebKeySet.parse(try await fetcher.fetchDocument())
            }
            newKeys = keySet.keys
        } catch {
            failure = error
        }
        let now = time.monotonic
        let jitter = jitter()
        let (waiters, removed, next, cached) = state.withLock { state in
            let (waiters, removed) = state.finishReload(with: newKeys, startedAt: startedAt, now: now, jitter: jitter)
            return (waiters, removed, state.nextScheduledReload, state.keys.count)
        }
        if let newKeys {
            reloads.increment()
            keyCount.set(newKeys.count)
            lastSuccessWall.set(Int(time.wallSeconds))
            logger.info("JWKS reloaded", ["jwks.keys": "\(newKeys.count)"])
            if !removed.isEmpty { onKeysRemoved(removed) }
        } else {
            reloadFailures.increment()
            // The error describes the transport or parse failure, never key material.
            let retry = next.map { "\(Int(($0 - now).seconds.rounded(.up)))" } ?? "0"
            logger.warning(
                cached == 0 ? "JWKS load failed; no keys yet, tokens get 503" : "JWKS reload failed; keeping previous keys",
                ["error": "\(failure.map { "\($0)" } ?? "unknown")", "jwks.keys": "\(cached)", "jwks.retry_seconds": retry]
            )
        }
        for waiter in waiters { waiter.resume() }
    }

    private static let unknownKid = AuthError(.unknownKid, "no key with this kid in the tenant JWKS")
    private static let unavailable = AuthError(.keysUnavailable, "the tenant JWKS could not be loaded")
}
