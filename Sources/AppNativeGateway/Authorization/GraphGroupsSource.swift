public import AppNativeAuth
import AppNativeClient
public import AppNativeCore
import AppNativeSignIn

/// A `GroupsSource` that resolves a groups overage through Microsoft Graph (`GROUPS_FROM_GRAPH`):
/// an application token by client credentials (kept until near its expiry), then
/// `getMemberGroups` for the user. Answers are cached per user, one lookup per user is in flight
/// at a time (the others wait for it), and Graph's `Retry-After` is honoured; the decisions are
/// `GroupsDirectoryState`'s, this class only performs them. Tokens and secrets never reach a log
/// line or a metric label.
public final class GraphGroupsSource: GroupsSource {
    private typealias State = GroupsDirectoryState<CheckedContinuation<GroupsLookup, Never>>

    /// `Retry-After` of a 503 when Graph or the token endpoint failed without saying when to come back.
    public static let failureRetryAfterSeconds = 5

    private let configuration: GraphGroupsConfiguration
    private let client: any HTTPFetching
    private let time: any TimeSource
    private let logger: Logger
    private let state: Locked<State>
    /// The token endpoint's client, once the discovery document named it.
    private let tokenClient = Locked<TokenEndpointClient?>(nil)
    /// The credential at the token endpoint (replaced when `SIGHUP` rotated `ENTRA_CLIENT_SECRET_FILE`).
    private let credential: Locked<ClientCredential>
    /// The application token request in flight: lookups of several users share it.
    private let tokenFlight = Locked<Task<Secret<String>?, Never>?>(nil)
    private let metrics: GraphMetrics

    public init(
        configuration: GraphGroupsConfiguration, time: any TimeSource = SystemTimeSource(), metrics: MetricsRegistry = .shared,
        logger: Logger = .disabled
    ) {
        self.configuration = configuration
        credential = Locked(configuration.credential)
        client = configuration.client ?? CurlHTTPClient.shared
        self.time = time
        self.logger = logger.with(["component": "graph"])
        state = Locked(State(timeToLive: configuration.cacheDuration))
        self.metrics = GraphMetrics(registry: metrics)
    }

    /// Asks for application tokens with `credential` from now on; a token already obtained stays
    /// in use until it expires or Graph refuses it.
    func useCredential(_ credential: ClientCredential) {
        self.credential.withLock { $0 = credential }
        tokenClient.withLock { $0 = nil }
    }

    public func groups(of user: UserIdentity) -> GroupsLookup {
        guard user.hasGroupsOverage else { return .known(user.groups) }
        let key = State.UserKey(objectID: user.objectID, tenantID: user.tenantID)
        let now = time.wallSeconds
        if let groups = state.withLock({ $0.cachedGroups(of: key, now: now) }) {
            metrics.cacheHits.increment()
            return .known(groups)
        }
        return .mustFetch
    }

    public func fetchGroups(of user: UserIdentity) async -> GroupsLookup {
        guard user.hasGroupsOverage else { return .known(user.groups) }
        let key = State.UserKey(objectID: user.objectID, tenantID: user.tenantID)
        return await withCheckedContinuation { continuation in
            let now = time.wallSeconds
            let lookup = state.withLock { $0.lookup(key, waiter: continuation, now: now) }
            switch lookup {
            case .cached(let groups):
                metrics.cacheHits.increment()
                continuation.resume(returning: .known(groups))
            case .throttled(let seconds):
                metrics.requests(.throttledLocally).increment()
                continuation.resume(returning: .unavailable(reason: "graph_throttled", retryAfterSeconds: seconds))
            case .joined:
                metrics.cacheJoins.increment()
            case .fetch:
                metrics.cacheMisses.increment()
                Task { await self.resolve(key) }
            }
        }
    }

    /// Performs the lookup of `key` and answers everyone waiting for it.
    private func resolve(_ key: State.UserKey) async {
        let (result, answer) = await lookUp(key)
        let waiters = state.withLock { $0.finish(key, with: result, now: time.wallSeconds) }
        for waiter in waiters { waiter.resume(returning: answer) }
    }

    private func lookUp(_ key: State.UserKey) async -> (State.Result, GroupsLookup) {
        let failed = GroupsLookup.unavailable(reason: "graph_unavailable", retryAfterSeconds: Self.failureRetryAfterSeconds)
        guard let token = await applicationToken() else { return (.failed, failed) }
        guard
            let request = GraphMemberGroups.request(
                graphURL: configuration.graphURL, objectID: key.objectID, applicationToken: token, timeout: configuration.callTimeout)
        else {
            logger.warning("Graph cannot name this user: the object id is not a plain id", ["graph.outcome": "invalid_oid"])
            metrics.requests(.invalidUser).increment()
            return (.failed, failed)
        }
        let started = time.monotonic
        let response: HTTPResponse
        do {
            response = try await client.send(request)
        } catch {
            metrics.graphDuration.observe((time.monotonic - started).seconds)
            metrics.requests(.unreachable).increment()
            logger.warning("Graph getMemberGroups failed", ["graph.outcome": "unreachable", "reason": "\(error.code)", "user.oid": key.objectID])
            return (.failed, failed)
        }
        metrics.graphDuration.observe((time.monotonic - started).seconds)
        switch GraphMemberGroups.answer(status: response.status, headers: response.headers, body: response.body) {
        case .groups(let groups):
            metrics.requests(.ok).increment()
            logger.info("Graph listed a user's groups", ["graph.outcome": "ok", "graph.groups": "\(groups.count)", "user.oid": key.objectID])
            return (.groups(groups), .known(groups))
        case .throttled(let seconds):
            metrics.requests(.throttled).increment()
            logger.warning(
                "Graph is throttling: no call before Retry-After", ["graph.outcome": "throttled", "graph.retry_after": "\(seconds)", "user.oid": key.objectID])
            return (.throttled(retryAfterSeconds: seconds), .unavailable(reason: "graph_throttled", retryAfterSeconds: seconds))
        case .refused(let status, let code):
            metrics.requests(.refused).increment()
            // A refused token (revoked consent, rotated credential) is not used again.
            if status == 401 || status == 403 { state.withLock { $0.forgetApplicationToken() } }
            logger.warning(
                status == 401 || status == 403
                    ? "Graph refused the gateway's application token: grant GroupMember.Read.All (application) with admin consent (docs/entra-setup.md)"
                    : "Graph getMemberGroups refused",
                ["graph.outcome": "refused", "graph.status": "\(status)", "graph.error": code ?? "-", "user.oid": key.objectID])
            return (.failed, failed)
        case .malformed(let reason):
            metrics.requests(.malformed).increment()
            logger.warning("Graph answered what getMemberGroups does not", ["graph.outcome": "malformed", "reason": reason, "user.oid": key.objectID])
            return (.failed, failed)
        }
    }

    /// The application token: the kept one, or the one being requested, or a new request (one
    /// at a time). `nil` after logging why not.
    private func applicationToken() async -> Secret<String>? {
        if let token = state.withLock({ $0.applicationToken(now: time.wallSeconds) }) { return token }
        let flight = tokenFlight.withLock { flight in
            if let flight { return flight }
            let started = Task { await self.requestApplicationToken() }
            flight = started
            return started
        }
        let token = await flight.value
        tokenFlight.withLock { if $0 == flight { $0 = nil } }
        return token
    }

    /// A new application token from the token endpoint (found in the discovery document first, once).
    private func requestApplicationToken() async -> Secret<String>? {
        guard let endpoint = await tokenEndpointClient() else { return nil }
        let started = time.monotonic
        do {
            let token = try await endpoint.applicationToken(scope: configuration.scope)
            metrics.tokenDuration.observe((time.monotonic - started).seconds)
            metrics.tokenRequests(.ok).increment()
            let now = time.wallSeconds
            state.withLock { $0.keepApplicationToken(token.accessToken, expiresInSeconds: token.expiresInSeconds, now: now) }
            logger.info("application token for Graph obtained", ["graph.token.outcome": "ok", "graph.token.expires_in": "\(token.expiresInSeconds)"])
            return token.accessToken
        } catch {
            metrics.tokenDuration.observe((time.monotonic - started).seconds)
            var fields = ["graph.token.outcome": error.failure.reasonCode, "reason": Self.describe(error.failure)]
            if let entra = error.entraErrors { fields["graph.token.aadsts"] = entra }
            metrics.tokenRequests(GraphMetrics.TokenOutcome(error.failure)).increment()
            logger.warning("the token endpoint gave no application token for Graph", fields)
            return nil
        }
    }

    private func tokenEndpointClient() async -> TokenEndpointClient? {
        if let client = tokenClient.withLock({ $0 }) { return client }
        let fetcher: any ProviderMetadataFetching
        if let configured = configuration.metadataFetcher {
            fetcher = configured
        } else {
            do throws(ClientError) {
                fetcher = try HTTPProviderMetadataFetcher(discoveryURL: configuration.discoveryURL, client: client)
            } catch {
                logger.error("Graph: the discovery URL is refused by the outbound rules", ["reason": "\(error.code)"])
                return nil
            }
        }
        let metadata: ProviderMetadata
        do throws(SignInProviderError) {
            metadata = try await fetcher.fetchMetadata()
        } catch {
            metrics.tokenRequests(.discovery).increment()
            logger.warning("Graph: the discovery document could not be loaded", ["graph.token.outcome": "discovery", "reason": Self.describe(error)])
            return nil
        }
        do throws(ClientError) {
            let endpoint = try TokenEndpointClient(
                tokenEndpoint: metadata.tokenEndpoint, clientID: configuration.clientID, credential: credential.withLock { $0 },
                client: client, timeout: configuration.callTimeout, timeSource: time)
            tokenClient.withLock { $0 = endpoint }
            return endpoint
        } catch {
            metrics.tokenRequests(.discovery).increment()
            logger.warning("Graph: the token endpoint is refused by the outbound rules", ["graph.token.outcome": "discovery", "reason": "\(error.code)"])
            return nil
        }
    }

    private static func describe(_ failure: SignInProviderError) -> String {
        switch failure {
        case .unreachable(let reason), .malformed(let reason), .credential(let reason): reason
        case .refused(let status, let oauthError): "status \(status)" + (oauthError.map { " \($0)" } ?? "")
        }
    }
}

/// The Graph metrics: `graph.requests{outcome}`, `graph.token.requests{outcome}`, the cache's
/// hits, misses and joins, and the durations of both calls.
final class GraphMetrics: Sendable {
    enum Outcome: String, CaseIterable {
        case ok, throttled, refused, malformed, unreachable
        case throttledLocally = "throttled_wait"
        case invalidUser = "invalid_oid"
    }

    enum TokenOutcome: String, CaseIterable {
        case ok, refused, unreachable, malformed, credential, discovery

        init(_ failure: SignInProviderError) {
            switch failure {
            case .refused: self = .refused
            case .unreachable: self = .unreachable
            case .malformed: self = .malformed
            case .credential: self = .credential
            }
        }
    }

    private let outcomes: [Outcome: Counter]
    private let tokenOutcomes: [TokenOutcome: Counter]
    let cacheHits: Counter
    let cacheMisses: Counter
    let cacheJoins: Counter
    let graphDuration: Histogram
    let tokenDuration: Histogram

    init(registry: MetricsRegistry) {
        var outcomes: [Outcome: Counter] = [:]
        for outcome in Outcome.allCases {
            outcomes[outcome] = registry.counter(MetricCatalogue.graphRequests, labels: ["outcome": outcome.rawValue])
        }
        self.outcomes = outcomes
        var tokenOutcomes: [TokenOutcome: Counter] = [:]
        for outcome in TokenOutcome.allCases {
            tokenOutcomes[outcome] = registry.counter(MetricCatalogue.graphTokenRequests, labels: ["outcome": outcome.rawValue])
        }
        self.tokenOutcomes = tokenOutcomes
        cacheHits = registry.counter(MetricCatalogue.graphCacheHits)
        cacheMisses = registry.counter(MetricCatalogue.graphCacheMisses)
        cacheJoins = registry.counter(MetricCatalogue.graphCacheJoins)
        graphDuration = registry.histogram(MetricCatalogue.graphDuration)
        tokenDuration = registry.histogram(MetricCatalogue.graphTokenDuration)
    }

    func requests(_ outcome: Outcome) -> Counter {
        outcomes[outcome] ?? Counter()
    }

    func tokenRequests(_ outcome: TokenOutcome) -> Counter {
        tokenOutcomes[outcome] ?? Counter()
    }
}
