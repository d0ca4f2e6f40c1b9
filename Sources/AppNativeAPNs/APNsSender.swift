public import AppNativeCore
import AppNativeCrypto

/// Sends APNs pushes over HTTP/2 (contract/apns.md): resolves credentials per send (explicit
/// configuration > runtime provider > environment), keeps one connection per credential set,
/// and answers one `APNsResult` per device.
///
/// Clients are cached per credential set, keyed with the key's SHA-256 digest; a new key or key
/// id for the same team, bundle and environment replaces the old client on the next send (the
/// old one is dropped once its in-flight pushes finish).
public final class APNsSender: Sendable {
    private let environment: Result<APNsConfiguration, APNsError>
    private let provider: Locked<APNsConfigurationProvider?>
    private let options: APNsSenderOptions
    private let timeSource: any TimeSource
    private let logger: Logger
    private let metrics: APNsMetrics
    private let jitter: @Sendable () -> Double
    private let connections = Locked<[APNsConfiguration.CacheKey: APNsConnection]>([:])
    /// Provider tokens per signing key, kept apart from the connections so that switching a
    /// connection (a new endpoint, a rotation and back) never re-signs a key's token early:
    /// Apple refuses updates more often than every 20 minutes per key.
    private let tokenSources = Locked<[TokenSourceKey: ProviderTokenSource]>([:])
    /// Keys remembered at most; beyond this an arbitrary one is forgotten (so only more than 32
    /// keys in use at once could cause an early re-sign).
    private static let maxTokenSources = 32

    private struct TokenSourceKey: Hashable, Sendable {
        var teamID: String
        var keyID: String
        var keyDigest: SHA256Digest
    }

    /// Creates a sender. Nothing connects until the first send.
    ///
    /// - Parameters:
    ///   - environment: where `APNS_*` variables are read (once, here).
    ///   - provider: credentials at run time; `nil` answers fall back to the environment.
    ///   - options: timeouts, retries, batch concurrency.
    ///   - timeSource: the clock for provider-token ages and retry waits.
    ///   - logger: refusals and failures (never keys, tokens or payloads).
    ///   - metrics: where the `apns.*` metrics are registered.
    ///   - jitter: random numbers in `0..<1` for retry delays (fixed in tests).
    public init(
        environment: [String: String] = [:],
        provider: APNsConfigurationProvider? = nil,
        options: APNsSenderOptions = APNsSenderOptions(),
        timeSource: any TimeSource = SystemTimeSource(),
        logger: Logger = .disabled,
        metrics: MetricsRegistry = .shared,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.environment = Result { () throws(APNsError) in try APNsConfiguration.fromEnvironment(environment) }
        self.provider = Locked(provider)
        self.options = options
        self.timeSource = timeSource
        self.logger = logger
        self.metrics = APNsMetrics(registry: metrics)
        self.jitter = jitter
    }

    deinit {
        for connection in connections.withLock({ Array($0.values) }) { connection.shutdown() }
    }

    /// Registers (or with `nil` removes) the runtime credentials provider.
    public func setProvider(_ provider: APNsConfigurationProvider?) {
        self.provider.withLock { $0 = provider }
    }

    /// The credentials a send would use: `explicit`, else the provider's answer, else the environment.
    ///
    /// - Throws: `.missingConfiguration`/`.invalidConfiguration` from the environment, or
    ///   `.invalidConfiguration` when the provider throws (its error is not echoed: it may hold secrets).
    public func resolveConfiguration(_ explicit: APNsConfiguration? = nil) async throws(APNsError) -> APNsConfiguration {
        if let explicit { return explicit }
        if let provider = provider.withLock({ $0 }) {
            do {
                if let provided = try await provider() { return provided }
            } catch let error as APNsError {
                throw error
            } catch {
                throw APNsError(.invalidConfiguration, reason: "APNs configuration provider failed (\(type(of: error)))")
            }
        }
        return try environment.get()
    }

    /// The Live Activity topic for the resolved configuration (`live_activity_topic`).
    public func liveActivityTopic(_ explicit: APNsConfiguration? = nil) async throws(APNsError) -> String {
        try await resolveConfiguration(explicit).bundleID + ".push-type.liveactivity"
    }

    /// Sends `notification` to one device.
    ///
    /// - Parameters:
    ///   - notification: a built notification.
    ///   - deviceToken: the hexadecimal device (or Live Activity push) token.
    ///   - configuration: explicit credentials for this send.
    /// - Returns: Apple's answer, or a result with `transportError` when none came.
    /// - Throws: `APNsError` before sending: configuration, an invalid token, a payload over 4096 bytes.
    public func send(
        _ notification: APNsNotification,
        to deviceToken: String,
        configuration: APNsConfiguration? = nil
    ) async throws(APNsError) -> APNsResult {
        let body = try notification.body()
        try Self.validate(deviceToken: deviceToken)
        let connection = try connection(for: try await resolveConfiguration(configuration))
        return try await send(notification, body: body, to: deviceToken, over: connection)
    }

    /// Sends `notification` to every device, at most `maxConcurrentPushes` streams at a time,
    /// and answers one result per token in the order given.
    ///
    /// - Throws: `APNsError` before anything is sent (configuration, payload, any invalid token).
    public func send(
        _ notification: APNsNotification,
        to deviceTokens: [String],
        configuration: APNsConfiguration? = nil
    ) async throws(APNsError) -> [APNsResult] {
        let body = try notification.body()
        for token in deviceTokens { try Self.validate(deviceToken: token) }
        let connection = try connection(for: try await resolveConfiguration(configuration))
        // The shape of this loop is deliberate: results kept outside the group's closure, each
        // child's answer an enum of our own, no local function. Swift 6.3.1 -O miscompiles other
        // shapes (a `Result<_, APNsError>` array returned from the group closure traps on the
        // first batch in release builds only); Tests/…/APNsReleaseBuildTests guards it.
        var slots = [BatchSlot?](repeating: nil, count: deviceTokens.count)
        let width = max(1, options.maxConcurrentPushes)
        await withTaskGroup(of: (Int, BatchSlot).self) { group in
            var next = 0
            while next < deviceTokens.count, next < width {
                let index = next
                group.addTask { await self.batchSlot(notification, body: body, to: deviceTokens[index], over: connection, index: index) }
                next += 1
            }
            // A sliding window: each finished push starts the next one.
            while let (index, slot) = await group.next() {
                slots[index] = slot
                if next < deviceTokens.count {
                    let index = next
                    group.addTask { await self.batchSlot(notification, body: body, to: deviceTokens[index], over: connection, index: index) }
                    next += 1
                }
            }
        }
        var results: [APNsResult] = []
        results.reserveCapacity(slots.count)
        for slot in slots {
            switch slot {
            case .sent(let result): results.append(result)
            case .failed(let error): throw error
            case nil: preconditionFailure("a batch slot is empty, yet every push started in the group reports back before it ends")
            }
        }
        return results
    }

    /// One device's outcome in a batch.
    private enum BatchSlot: Sendable {
        case sent(APNsResult)
        case failed(APNsError)
    }

    private func batchSlot(
        _ notification: APNsNotification, body: [UInt8], to token: String, over connection: APNsConnection, index: Int
    ) async -> (Int, BatchSlot) {
        do throws(APNsError) {
            return (index, .sent(try await send(notification, body: body, to: token, over: connection)))
        } catch {
            return (index, .failed(error))
        }
    }

    /// Stops every cached connection.
    public func shutdown() {
        let all = connections.withLock { connections in
            defer { connections.removeAll() }
            return Array(connections.values)
        }
        for connection in all { connection.shutdown() }
    }

    /// Cached connections (tests, diagnostics).
    package var cachedConnectionCount: Int { connections.withLock { $0.count } }

    /// Provider-token signatures made for `configuration`'s key, if it has a connection (tests).
    package func providerTokenSignatures(for configuration: APNsConfiguration) -> Int? {
        connections.withLock { $0[configuration.cacheKey] }?.tokens.signatureCount
    }

    private func send(
        _ notification: APNsNotification,
        body: [UInt8],
        to deviceToken: String,
        over connection: APNsConnection
    ) async throws(APNsError) -> APNsResult {
        let result = try await connection.send(notification, body: body, to: deviceToken)
        metrics.record(result, kind: notification.kind)
        if !result.sent {
            var details = ["apns.kind": notification.kind.rawValue, "apns.id": result.apnsID]
            if let status = result.status { details["apns.status"] = String(status) }
            if let reason = result.reason { details["apns.reason"] = reason.metricLabel }
            if let error = result.transportError { details["apns.error"] = error.code.description }
            logger.warning("APNs push not sent", details)
        }
        return result
    }

    /// The cached connection for `configuration`, created on first use. A new credential set
    /// evicts the cached ones for the same team, bundle and environment (a rotated key).
    private func connection(for configuration: APNsConfiguration) throws(APNsError) -> APNsConnection {
        let key = configuration.cacheKey
        if let cached = connections.withLock({ $0[key] }) { return cached }
        // Built outside the lock: it parses the key and starts a worker thread.
        let created = APNsConnection(
            configuration: configuration, tokens: try tokenSource(for: configuration), options: options,
            timeSource: timeSource, metrics: metrics, jitter: jitter)
        let (winner, evicted) = connections.withLock { connections -> (APNsConnection, [APNsConnection]) in
            if let raced = connections[key] { return (raced, []) }
            let stale = connections.keys.filter { $0.replaces(key) }
            let evicted = stale.compactMap { connections.removeValue(forKey: $0) }
            connections[key] = created
            return (created, evicted)
        }
        if winner !== created { created.shutdown() }
        if !evicted.isEmpty {
            logger.info("APNs credentials changed; old client dropped", ["apns.key_id": configuration.keyID])
        }
        // Evicted connections are released here; each stops once its in-flight sends let go of it.
        _ = evicted
        return winner
    }

    /// The provider-token source of `configuration`'s key, created on first use.
    private func tokenSource(for configuration: APNsConfiguration) throws(APNsError) -> ProviderTokenSource {
        let cacheKey = configuration.cacheKey
        let key = TokenSourceKey(teamID: configuration.teamID, keyID: configuration.keyID, keyDigest: cacheKey.keyDigest)
        if let existing = tokenSources.withLock({ $0[key] }) { return existing }
        let signingKey: P256SigningKey
        do {
            signingKey = try P256SigningKey(pkcs8PEM: configuration.key.revealed)
        } catch {
            throw APNsError(.invalidConfiguration, reason: "APNs key is not a P-256 private key")
        }
        let created = ProviderTokenSource(
            key: signingKey, keyID: configuration.keyID, teamID: configuration.teamID, timeSource: timeSource)
        return tokenSources.withLock { sources in
            if let raced = sources[key] { return raced }
            if sources.count >= Self.maxTokenSources, let victim = sources.keys.first { sources[victim] = nil }
            sources[key] = created
            return created
        }
    }

    /// A device token is 1 to 512 hexadecimal digits (Apple's are 64; Live Activity tokens are
    /// longer). Checked because it becomes part of the request path.
    static func validate(deviceToken: String) throws(APNsError) {
        let isHex = deviceToken.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) || (byte >= 0x41 && byte <= 0x46)
        }
        guard !deviceToken.isEmpty, deviceToken.utf8.count <= 512, isHex else {
            throw APNsError(.invalidDeviceToken, reason: "device token must be 1 to 512 hexadecimal digits")
        }
    }
}
