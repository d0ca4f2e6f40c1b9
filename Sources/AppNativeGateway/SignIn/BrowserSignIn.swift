import AppNativeAuth
import AppNativeClient
import AppNativeCore
import AppNativeCrypto
import AppNativeSignIn

/// The browser sign-in's shared part (every loop uses the one instance): the provider's metadata
/// (loaded in the background, retried with backoff like the key set), the provider's key set, the
/// state cookie codec, the states already used, the per-address limits, and the off-loop
/// completion of a callback.
final class BrowserSignIn: Sendable {
    let configuration: BrowserSignInConfiguration
    /// The state cookie's codec, keyed by the session secrets (replaced when `SIGHUP` rotated them).
    var stateCookie: SignInStateCookie { stateCookies.value }
    private let stateCookies: Reloadable<SignInStateCookie>
    private let callbackPath: String
    /// The credential at the token endpoint (replaced when `SIGHUP` rotated `ENTRA_CLIENT_SECRET_FILE`).
    private let credential: Locked<ClientCredential>
    let consumed = ConsumedSignInStates()
    /// `SIGN_IN_RATE_LIMIT` and `SIGN_IN_REDEEM_RATE_LIMIT`, per client address; `nil` when off.
    private let startLimiter: Locked<SignInRateLimiter>?
    private let redemptionLimiter: Locked<SignInRateLimiter>?
    let classifier = NavigationClassifier(isEnabled: true)
    /// The key set at the discovery document's `jwks_uri` (never the app tokens' key set).
    let keys: JWKSCache
    private let discovery: ProviderDiscovery
    private let tenantID: String
    private let leeway: Duration
    private let time: any TimeSource
    private let logger: Logger
    private let metrics: SignInMetrics
    private let refresher = Locked<Task<Void, Never>?>(nil)

    /// How often the discovery document is fetched again once loaded.
    static let metadataRefreshInterval: Duration = .seconds(3600)

    init(
        configuration: BrowserSignInConfiguration, authPathPrefix: String, tenantID: String, leeway: Duration,
        time: any TimeSource = SystemTimeSource(), metrics: MetricsRegistry, logger: Logger
    ) throws {
        self.configuration = configuration
        startLimiter = configuration.startsPerMinute > 0 ? Locked(SignInRateLimiter(perMinute: configuration.startsPerMinute)) : nil
        redemptionLimiter =
            configuration.redemptionsPerMinute > 0 ? Locked(SignInRateLimiter(perMinute: configuration.redemptionsPerMinute)) : nil
        callbackPath = authPathPrefix + "callback"
        stateCookies = Reloadable(try SignInStateCookie(sessionSecrets: configuration.sessionSecrets, callbackPath: callbackPath))
        credential = Locked(configuration.credential)
        let discovery = ProviderDiscovery()
        self.discovery = discovery
        keys = JWKSCache(
            fetcher: DiscoveredKeySetFetcher(discovery: discovery), time: time, logger: logger.with(["component": "signin.jwks"]),
            metrics: MetricsRegistry())
        self.tenantID = tenantID
        self.leeway = leeway
        self.time = time
        self.logger = logger.with(["component": "signin"])
        self.metrics = SignInMetrics(registry: metrics)
    }

    deinit {
        refresher.withLock { $0 }?.cancel()
    }

    /// Whether discovery and the provider's keys have loaded.
    var isReady: Bool { discovery.current != nil && keys.isLoaded }

    var metadata: ProviderMetadata? { discovery.current?.metadata }

    /// Starts the background discovery: at once, retried with capped exponential backoff and
    /// jitter until it loads, then again every `metadataRefreshInterval` (a failed refresh keeps
    /// the metadata it had).
    func start() {
        let fetcher: any ProviderMetadataFetching
        if let configured = configuration.metadataFetcher {
            fetcher = configured
        } else {
            do {
                fetcher = try HTTPProviderMetadataFetcher(discoveryURL: configuration.discoveryURL)
            } catch {
                logger.error("sign-in discovery URL refused", ["reason": "\(error.code)"])
                return
            }
        }
        let schedule = JWKSCacheConfiguration()
        let task = Task { [weak self, time] in
            var failures = 0
            while !Task.isCancelled {
                guard let self else { return }
                let delay: Duration
                do throws(SignInProviderError) {
                    let metadata = try await fetcher.fetchMetadata()
                    self.install(metadata)
                    failures = 0
                    delay = Self.metadataRefreshInterval
                } catch {
                    failures += 1
                    self.logger.warning("sign-in discovery failed", ["reason": error.reasonCode, "failures": "\(failures)"])
                    delay = schedule.retryDelay(afterFailures: failures, jitter: Double.random(in: 0..<1))
                }
                do { try await time.sleep(for: delay) } catch { return }
            }
        }
        refresher.withLock { $0 = task }
    }

    /// Keys the state cookies of attempts that start from now on with `secrets` (the signing
    /// one first); attempts under way finish when their secret is still among them.
    func useSessionSecrets(_ secrets: [SecretBytes]) {
        do {
            stateCookies.replace(with: try SignInStateCookie(sessionSecrets: secrets, callbackPath: callbackPath))
        } catch {
            logger.error("sign-in state cookie keys cannot be derived from the new session secrets; keeping the old ones", ["reason": "\(error.code)"])
        }
    }

    /// Redeems codes with `credential` from now on (a new token endpoint client over the same metadata).
    func useCredential(_ credential: ClientCredential) {
        self.credential.withLock { $0 = credential }
        if let metadata { install(metadata) }
    }

    /// Waits (bounded) for the first discovery and key load, for a start that reports ready.
    func waitUntilReady(timeout: Duration) async {
        let deadline = time.monotonic + timeout
        while !isReady, time.monotonic < deadline {
            if discovery.current != nil { await keys.refresh() }
            if isReady { return }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    private func install(_ metadata: ProviderMetadata) {
        let redeemer: any AuthorizationCodeRedeeming
        do throws(SignInProviderError) {
            if let configured = configuration.codeRedeemer {
                redeemer = configured
            } else {
                let credential = credential.withLock { $0 }
                do {
                    redeemer = try TokenEndpointClient(
                        tokenEndpoint: metadata.tokenEndpoint, clientID: configuration.clientID, credential: credential,
                        scope: configuration.scopes, timeSource: time)
                } catch {
                    throw .malformed(reason: "token endpoint refused by the outbound rules (\(error.code))")
                }
            }
        } catch {
            logger.error("sign-in token endpoint cannot be used", ["reason": error.reasonCode])
            return
        }
        let verifier = IDTokenVerifier(
            issuer: metadata.issuer, clientID: configuration.clientID, tenantID: tenantID, keys: keys, leeway: leeway, time: time)
        let previous = discovery.replace(with: ProviderDiscovery.Discovered(metadata: metadata, redeemer: redeemer, verifier: verifier))
        if previous?.metadata.jwksURI != metadata.jwksURI {
            logger.info("sign-in provider discovered", ["issuer": metadata.issuer])
            keys.startRefreshing()
            Task { [keys] in await keys.refresh() }
        }
    }

    // MARK: The attempt

    /// A fresh attempt for `returnPath`: the authorize URL and the state cookie, or why not.
    ///
    /// - Parameter client: the client address's limit key (`TrustedProxies.limitKey`).
    func begin(
        returnPath: ReturnPath, redirectURI: String, isSecure: Bool, client: String
    ) -> Result<(location: String, setCookie: String), SignInFailure> {
        if let limited = Self.take(startLimiter, client, now: monotonicSeconds) { return .failure(record(limited)) }
        guard let discovered = discovery.current else { return .failure(record(.notReady)) }
        let now = time.wallSeconds
        // An attempt that could not be marked used at its callback is not started.
        if let retryAfter = consumed.retryAfterIfFull(now: now) { return .failure(record(.busy(retryAfterSeconds: retryAfter))) }
        let attempt = SignInAttempt.start(returnPath: returnPath, now: now)
        let request = AuthorizationRequest(
            authorizationEndpoint: discovered.metadata.authorizationEndpoint, clientID: configuration.clientID, redirectURI: redirectURI,
            scopes: configuration.scopes)
        metrics.started.increment()
        return .success((request.url(for: attempt), stateCookie.setCookieHeader(for: attempt, now: now, isSecure: isSecure)))
    }

    /// Counts a callback with a code from `client` against `SIGN_IN_REDEEM_RATE_LIMIT`; the
    /// failure when it is over.
    func admitRedemption(client: String) -> SignInFailure? {
        Self.take(redemptionLimiter, client, now: monotonicSeconds).map(record)
    }

    /// The attempt a callback names, checked and marked used.
    ///
    /// - Parameter isSecure: the origin is https (the `__Host-` cookie name).
    func attempt(forState state: String, cookieHeaders: [String], isSecure: Bool) -> Result<SignInAttempt, SignInFailure> {
        let now = time.wallSeconds
        do throws(SignInFailure) {
            let attempt = try stateCookie.attempt(forState: state, cookieHeaders: cookieHeaders, now: now, isSecure: isSecure)
            switch consumed.consume(attempt.state, expiresAt: attempt.expiresAt, now: now) {
            case .fresh: return .success(attempt)
            case .replayed: throw .stateReplayed
            case .full(let retryAfter): throw .busy(retryAfterSeconds: retryAfter)
            }
        } catch {
            return .failure(record(error))
        }
    }

    private var monotonicSeconds: Double {
        let parts = time.monotonic.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    private static func take(_ limiter: Locked<SignInRateLimiter>?, _ client: String, now: Double) -> SignInFailure? {
        guard let limiter else { return nil }
        switch limiter.withLock({ $0.take(client, now: now) }) {
        case .allowed: return nil
        case .limited(let retryAfter): return .rateLimited(retryAfterSeconds: retryAfter)
        }
    }

    /// Off the loop: redeems the code and verifies the ID token.
    func complete(code: Secret<String>, attempt: SignInAttempt, redirectURI: String) async -> Result<VerifiedIdentity, SignInFailure> {
        guard let discovered = discovery.current else { return .failure(record(.notReady)) }
        do throws(SignInFailure) {
            let answer: TokenEndpointAnswer
            do {
                answer = try await discovered.redeemer.redeem(
                    CodeRedemption(code: code, codeVerifier: attempt.proofKey.verifier, redirectURI: redirectURI))
            } catch {
                throw SignInFailure(error)
            }
            let identity = try await discovered.verifier.verify(answer.idToken, nonce: attempt.nonce)
            metrics.completed.increment()
            return .success(identity)
        } catch {
            return .failure(record(error))
        }
    }

    /// Counts and logs `failure` by its reason code (never with request data). A rate-limited
    /// request is counted only: a flood would otherwise write a line per request (the access log
    /// has its `signin.reason`).
    @discardableResult
    func record(_ failure: SignInFailure) -> SignInFailure {
        metrics.failure(failure.reasonCode).increment()
        if case .rateLimited = failure { return failure }
        var fields = ["reason": failure.reasonCode, "status": "\(failure.status)"]
        switch failure {
        case .tokenInvalid(let check): fields["check"] = check
        case .providerError(let code?): fields["provider_error"] = code
        case .redemptionRefused(let code?): fields["provider_error"] = code
        default: break
        }
        logger.info("browser sign-in failed", fields)
        return failure
    }
}

/// The provider's metadata and what is built from it, replaced as a whole when discovery reloads.
final class ProviderDiscovery: Sendable {
    struct Discovered: Sendable {
        let metadata: ProviderMetadata
        let redeemer: any AuthorizationCodeRedeeming
        let verifier: IDTokenVerifier
    }

    private let state = Locked<Discovered?>(nil)

    var current: Discovered? { state.withLock { $0 } }

    /// Installs `discovered`, returning what was there.
    func replace(with discovered: Discovered) -> Discovered? {
        state.withLock { current in
            let previous = current
            current = discovered
            return previous
        }
    }
}

/// Downloads the key set from the `jwks_uri` discovery named; fails while discovery has not loaded.
struct DiscoveredKeySetFetcher: JWKSFetching {
    let discovery: ProviderDiscovery

    struct NotDiscovered: Error {}

    func fetchDocument() async throws -> [UInt8] {
        guard let uri = discovery.current?.metadata.jwksURI else { throw NotDiscovered() }
        return try await HTTPJWKSFetcher(url: uri).fetchDocument()
    }
}

/// `appnative_signin_started_total`, `appnative_signin_completed_total` and `appnative_signin_failures_total{reason}`.
final class SignInMetrics: Sendable {
    let started: Counter
    let completed: Counter
    private let failures: [String: Counter]
    private let other: Counter

    init(registry: MetricsRegistry) {
        started = registry.counter(MetricCatalogue.signInStarted)
        completed = registry.counter(MetricCatalogue.signInCompleted)
        var failures = [String: Counter]()
        for reason in SignInFailure.allReasonCodes {
            failures[reason] = registry.counter(MetricCatalogue.signInFailures, labels: ["reason": reason])
        }
        self.failures = failures
        other = registry.counter(MetricCatalogue.signInFailures, labels: ["reason": "other"])
    }

    func failure(_ reason: String) -> Counter { failures[reason] ?? other }
}
