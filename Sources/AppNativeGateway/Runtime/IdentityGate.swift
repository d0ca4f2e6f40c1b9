public import AppNativeAuth
public import AppNativeCore
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
    /// The session cookie codec in force when a session secret is read from a file (re-read on
    /// `SIGHUP`); `nil` when `authenticator.cookies` never changes.
    public var sessionCookies: Reloadable<SessionCookieCodec>? = nil
    /// The assertion signer in force when `ASSERTION_KEYS_FILE` is set (re-read on `SIGHUP`);
    /// `nil` when `assertions` never changes.
    public var assertionSigners: Reloadable<IdentityAssertionSigner>? = nil

    /// Takes the codec and signer in force from `copies` into `authenticator` and `assertions`.
    ///
    /// - Returns: whether either changed (what was derived from them must be derived again).
    mutating func takeRotated(_ copies: inout RotatedSecrets) -> Bool {
        var changed = false
        if copies.sessionCookies?.refresh() == true, let codec = copies.sessionCookies?.value {
            authenticator = RequestAuthenticator(verifier: authenticator.verifier, cookies: codec)
            changed = true
        }
        if copies.assertionSigners?.refresh() == true, let signer = copies.assertionSigners?.value {
            assertions = signer
            changed = true
        }
        return changed
    }
}

/// One loop's copies of the identity secrets read from files (loop-owned).
struct RotatedSecrets {
    var sessionCookies: Reloadable<SessionCookieCodec>.Snapshot?
    var assertionSigners: Reloadable<IdentityAssertionSigner>.Snapshot?

    init(_ settings: IdentitySettings) {
        sessionCookies = settings.sessionCookies.map(Reloadable.Snapshot.init)
        assertionSigners = settings.assertionSigners.map(Reloadable.Snapshot.init)
    }
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
