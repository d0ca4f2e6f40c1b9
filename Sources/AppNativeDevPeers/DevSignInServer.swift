public import AppNativeCore
import AppNativeHTTP
public import AppNativeServer

/// The dev identity provider as an OpenID provider that signs browsers in: discovery document,
/// key set, authorize endpoint with a sign-in page listing `DevSignInUser.all`, token endpoint
/// and end-session endpoint, on a loopback HTTP server of its own.
///
/// DEV ONLY: it signs with the committed dev key and accepts a client secret that is in the repository.
public final class DevSignInServer: Sendable {
    let authority: DevSignInAuthority
    private let server: HTTPServer

    /// The issuer: `http://127.0.0.1:<port>`, the prefix of every endpoint.
    public var issuer: String { authority.issuer }
    /// `OIDC_DISCOVERY_URL` for a gateway signing browsers in through this provider.
    public var discoveryURL: String { issuer + "/.well-known/openid-configuration" }
    /// The client id it accepts (`ENTRA_CLIENT_ID`).
    public var clientID: String { authority.clientID }
    /// The address it listens on.
    public var boundAddress: SocketAddress { server.boundAddress }

    /// Binds a listener (port 0 picks a free port); `start()` begins serving.
    ///
    /// - Parameters:
    ///   - provider: the dev signing key.
    ///   - listenAddress: where to listen; loopback.
    ///   - clientID: the one client registered (`DevIdentityProvider.signInClientID`).
    ///   - clientSecret: its secret (`DevIdentityProvider.signInClientSecret`).
    ///   - redirectURIs: the client's registered redirect URIs; more with `register(redirectURI:)`.
    ///   - users: who the sign-in page offers.
    ///   - timeSource: the clock for code expiry and token times.
    public init(
        provider: DevIdentityProvider,
        listenAddress: SocketAddress,
        clientID: String = DevIdentityProvider.signInClientID,
        clientSecret: String = DevIdentityProvider.signInClientSecret,
        redirectURIs: [String] = [],
        users: [DevSignInUser] = DevSignInUser.all,
        timeSource: any TimeSource = SystemTimeSource()
    ) throws(SystemCallError) {
        let authority = DevSignInAuthority(
            provider: provider, clientID: clientID, clientSecret: clientSecret, redirectURIs: redirectURIs, users: users,
            timeSource: timeSource
        )
        server = try HTTPServer(
            configuration: ServerConfiguration(listenAddress: listenAddress, eventLoops: 1),
            metrics: MetricsRegistry()
        ) { _ in DevSignInHandler(authority: authority) }
        authority.setIssuer("http://\(server.boundAddress)")
        self.authority = authority
    }

    /// Starts serving. Returns at once.
    public func start() { server.start() }

    /// Registers another redirect URI for the client (the gateway's `{PUBLIC_URL}{AUTH_PATH_PREFIX}callback`,
    /// known once the gateway listens). Post-logout redirects are accepted to the origin of any
    /// registered redirect URI.
    public func register(redirectURI: String) { authority.register(redirectURI: redirectURI) }

    /// Makes the provider misbehave in one of the ways a client must catch (tests only; `make run`
    /// never calls it).
    public func behave(_ quirks: DevSignInQuirks) { authority.setQuirks(quirks) }

    /// Stops serving.
    public func shutdown() { server.shutdown(gracePeriod: .milliseconds(200)) }
}

/// What the dev identity provider's handlers share across loops: its registration and its codes.
final class DevSignInAuthority: Sendable {
    let provider: DevIdentityProvider
    let clientID: String
    let clientSecret: String
    let users: [DevSignInUser]
    let timeSource: any TimeSource
    let codes = DevSignInCodes()
    private let redirects: Locked<[String]>
    private let issuerText = Locked("")
    private let quirkState = Locked(DevSignInQuirks())

    init(provider: DevIdentityProvider, clientID: String, clientSecret: String, redirectURIs: [String], users: [DevSignInUser], timeSource: any TimeSource) {
        self.provider = provider
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.users = users
        self.timeSource = timeSource
        redirects = Locked(redirectURIs)
    }

    var issuer: String { issuerText.withLock { $0 } }
    var redirectURIs: [String] { redirects.withLock { $0 } }

    func setIssuer(_ issuer: String) { issuerText.withLock { $0 = issuer } }

    var quirks: DevSignInQuirks { quirkState.withLock { $0 } }
    func setQuirks(_ quirks: DevSignInQuirks) { quirkState.withLock { $0 = quirks } }

    func register(redirectURI: String) {
        redirects.withLock { if !$0.contains(redirectURI) { $0.append(redirectURI) } }
    }

    /// Whether `uri` is on the origin (scheme, host, port) of a registered redirect URI.
    func acceptsPostLogoutRedirect(_ uri: String) -> Bool {
        guard let origin = Self.origin(of: uri) else { return false }
        return redirectURIs.contains { Self.origin(of: $0) == origin }
    }

    /// `scheme://authority` of an absolute http(s) URL, lower-cased; nil for anything else.
    static func origin(of uri: String) -> String? {
        let lowered = uri.lowercased()
        for scheme in ["http://", "https://"] where lowered.hasPrefix(scheme) {
            let rest = lowered.dropFirst(scheme.count)
            let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            guard !authority.isEmpty, !authority.contains("@"), !authority.contains("\\") else { return nil }
            return scheme + authority
        }
        return nil
    }
}
