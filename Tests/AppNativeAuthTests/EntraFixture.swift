import AppNativeAuth
import AppNativeCore
import AppNativeTesting
import Foundation

/// A configured verifier with a manual clock and a counting fetcher, plus a token factory.
/// The keys are loaded before the fixture is returned unless `loadsKeys` is false (an empty
/// cache answers every token with "keys unavailable" at once).
struct EntraFixture {
    static let tenant = "1111aaaa-bbbb-4ccc-8ddd-eeeeffff0001"
    static let audience = "ios-app-client-id"
    static let start = 1_800_000_000.0

    let factory: TestTokenFactory
    let fetcher: CountingFetcher
    let time: ManualTimeSource
    let verifier: EntraTokenVerifier
    let logs: InMemoryLogSink
    let metrics = MetricsRegistry()

    /// Which token kinds the fixture's verifier accepts.
    enum Mode {
        case idToken(audiences: [String])
        case accessToken(apiClientID: String, requiredScope: String, extraAudiences: [String])
        /// Any combination (both kinds, several scopes, app clients).
        case kinds(idTokenAudiences: [String]?, accessTokens: EntraConfiguration.AccessTokenRules?)
    }

    init(
        mode: Mode = .idToken(audiences: [EntraFixture.audience]),
        cache: JWKSCacheConfiguration = .init(),
        fetcher: CountingFetcher? = nil,
        factory: TestTokenFactory? = nil,
        loadsKeys: Bool = true
    ) async throws {
        let factory = try factory ?? TestTokenFactory.trusted()
        self.factory = factory
        self.fetcher = fetcher ?? CountingFetcher(document: factory.jwksDocument)
        time = ManualTimeSource(wallSeconds: Self.start)
        logs = InMemoryLogSink()
        let configuration: EntraConfiguration
        switch mode {
        case .idToken(let audiences):
            configuration = try EntraConfiguration(tenantID: Self.tenant, audiences: audiences)
        case .accessToken(let clientID, let scope, let extra):
            configuration = try EntraConfiguration(
                tenantID: Self.tenant,
                apiClientID: clientID,
                requiredScope: scope,
                extraAudiences: extra
            )
        case .kinds(let audiences, let accessTokens):
            configuration = try EntraConfiguration(tenantID: Self.tenant, idTokenAudiences: audiences, accessTokens: accessTokens)
        }
        verifier = EntraTokenVerifier(
            configuration: configuration,
            fetcher: self.fetcher,
            cacheConfiguration: cache,
            time: time,
            logger: Logger(sink: logs, minimumLevel: .debug),
            metrics: metrics
        )
        if loadsKeys { await verifier.keys.refresh() }
    }

    /// Claims of a valid ID token at the fixture's current time; `overrides` replace or add
    /// claims and `removing` drops them.
    /// Hits of the verified-token cache so far.
    var tokenCacheHits: Int { metrics.counter(MetricCatalogue.authTokenCacheLookups, labels: ["result": "hit"]).current }

    func claims(_ overrides: [String: Any] = [:], removing: [String] = []) -> [String: Any] {
        let now = Int(time.wallSeconds)
        var claims: [String: Any] = [
            "aud": Self.audience,
            "iss": "https://login.microsoftonline.com/\(Self.tenant)/v2.0",
            "iat": now - 10,
            "nbf": now - 10,
            "exp": now + 3600,
            "sub": "subject-1",
            "oid": "0a0a0a0a-0000-4000-8000-000000000001",
            "tid": Self.tenant,
            "email": "ada@example.com",
            "name": "Ada Lovelace",
            "ver": "2.0",
        ]
        for (key, value) in overrides { claims[key] = value }
        for key in removing { claims.removeValue(forKey: key) }
        return claims
    }

    func token(_ overrides: [String: Any] = [:], removing: [String] = [], kid: String? = nil) throws -> String {
        try factory.token(claims: claims(overrides, removing: removing), kid: kid)
    }
}
