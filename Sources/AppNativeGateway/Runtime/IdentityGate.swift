public import AppNativeAuth
import AppNativeCore
import AppNativeHTTP
public import AppNativeIdentity
import AppNativeServer

/// The identity settings and shared services of the request path (Sendable, shared by every loop).
public struct IdentitySettings: Sendable {
    public var authenticator: RequestAuthenticator
    public var assertions: IdentityAssertionSigner
    public var profile: IdentityHeaders.Profile
    /// Path prefixes served without credentials (forged identity headers are still removed).
    public var publicPathPrefixes: [String]
    /// Where the gateway's own endpoints live (`me`, `session`, `logout`, `verify`, `jwks.json`).
    public var authPathPrefix: String
    /// Origins accepted for cookie-authenticated state changes and WebSocket handshakes;
    /// empty: the request's own origin (its Host) only.
    public var allowedOrigins: [String]
    public var passesAuthorization: Bool
    /// WebSocket tunnels and event streams close this long after their credential's `exp`.
    public var credentialExpiryGrace: Duration
    /// The access policy in force (re-read on `SIGHUP`); `nil` without `ACCESS_POLICY_FILE`.
    public var accessPolicy: AccessPolicySource?
    public var authorizationHook: AuthorizationHook?
    /// Where a caller's groups come from when a `groups` rule meets a groups overage.
    public var groupsSource: any GroupsSource = CredentialGroupsSource()
}

/// Counters of the identity layer, by outcome; labels are reason codes, never request data.
final class IdentityMetrics: Sendable {
    private let registry: MetricsRegistry
    let waits: Counter
    /// `authenticated` by token and by cookie: counted on every credentialed request, so looked
    /// up once here instead of by label per request.
    private let authenticatedByToken: Counter
    private let authenticatedByCookie: Counter

    init(registry: MetricsRegistry) {
        self.registry = registry
        waits = registry.counter(MetricCatalogue.authKeyWaits)
        authenticatedByToken = Self.outcomeCounter(registry, "authenticated", AuthenticationMethod.token.rawValue)
        authenticatedByCookie = Self.outcomeCounter(registry, "authenticated", AuthenticationMethod.cookie.rawValue)
    }

    private static func outcomeCounter(_ registry: MetricsRegistry, _ result: String, _ reason: String) -> Counter {
        registry.counter(MetricCatalogue.authOutcomes, labels: ["result": result, "reason": reason])
    }

    /// Counts a request authenticated by `method`.
    func authenticated(by method: AuthenticationMethod) {
        switch method {
        case .token: authenticatedByToken.increment()
        case .cookie: authenticatedByCookie.increment()
        }
    }

    private let counters = Locked<[String: Counter]>([:])

    /// Counts an outcome; the counter is looked up in the registry once per (result, reason).
    func outcome(_ result: String, reason: String) {
        let key = result + "/" + reason
        if let counter = counters.withLock({ $0[key] }) {
            counter.increment()
            return
        }
        let counter = Self.outcomeCounter(registry, result, reason)
        counters.withLock { $0[key] = counter }
        counter.increment()
    }
}
