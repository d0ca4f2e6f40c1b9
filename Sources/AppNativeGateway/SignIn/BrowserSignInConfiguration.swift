import AppNativeAuth
import AppNativeClient
public import AppNativeCrypto
public import AppNativeSignIn

/// The browser sign-in settings (`BROWSER_SIGN_IN` and what it needs), read only when it is on.
public struct BrowserSignInConfiguration: Sendable {
    /// What `POST {AUTH_PATH_PREFIX}logout` does besides clearing the cookie (`SIGN_OUT`).
    public enum SignOut: String, Sendable {
        /// The signed-out page; the provider's session stays.
        case local
        /// The provider's end-session endpoint, then back to the signed-out page.
        case entra
    }

    /// `ENTRA_CLIENT_ID`: the web app registration; the ID token's `aud`.
    public var clientID: String
    /// How the client authenticates at the token endpoint (certificate files are read at start-up).
    public var credential: ClientCredential
    /// `OIDC_DISCOVERY_URL` (default: Entra's for the tenant on `ENTRA_AUTHORITY_HOST`).
    public var discoveryURL: String
    /// `PUBLIC_URL`: `scheme://host[:port]` the browser uses, without a trailing `/`.
    public var publicURL: String?
    /// `SIGN_IN_SCOPES`, space-separated, with `openid`.
    public var scopes: String
    public var signOut: SignOut
    /// The session secrets (signing first): the state cookie's key is derived from them.
    public var sessionSecrets: [SecretBytes]
    /// `SIGN_IN_RATE_LIMIT`: sign-in starts (`login` and the redirect of a navigation) allowed
    /// per minute per client address, also the burst; 0 turns the limit off.
    public var startsPerMinute = defaultStartsPerMinute
    /// `SIGN_IN_REDEEM_RATE_LIMIT`: callbacks with a code (each one a call to the provider's token
    /// endpoint) allowed per minute per client address, also the burst; 0 turns the limit off.
    public var redemptionsPerMinute = defaultRedemptionsPerMinute
    /// Replace the provider's discovery and token endpoint (tests).
    public var metadataFetcher: (any ProviderMetadataFetching)?
    public var codeRedeemer: (any AuthorizationCodeRedeeming)?

    public static let defaultScopes = "openid profile email"
    public static let defaultStartsPerMinute = 60
    public static let defaultRedemptionsPerMinute = 30

    /// The settings `config` lists (appended to the gateway's table).
    public static let settings: [Setting] = [
        Setting("BROWSER_SIGN_IN", default: "false", section: "Browser sign-in", "Sign browser navigations in with the OpenID provider (authorization code flow with PKCE); off: every unauthenticated request gets 401 with `WWW-Authenticate: Bearer`."),
        Setting("ENTRA_CLIENT_ID", section: "Browser sign-in", "The web app registration that signs browsers in (the ID token's `aud`) and calls Microsoft Graph. Required when BROWSER_SIGN_IN=true or GROUPS_FROM_GRAPH=true."),
        Setting("ENTRA_CLIENT_SECRET", section: "Browser sign-in", secret: true, "Client secret. One credential is required: this, a certificate, or AZURE_FEDERATED_TOKEN_FILE."),
        SecretFiles.setting(for: "ENTRA_CLIENT_SECRET", section: "Browser sign-in"),
        Setting("ENTRA_CLIENT_CERTIFICATE_FILE", section: "Browser sign-in", "PEM certificate registered with the app (with ENTRA_CLIENT_KEY_FILE): `private_key_jwt` client assertions (RFC 7523)."),
        Setting("ENTRA_CLIENT_KEY_FILE", section: "Browser sign-in", "PEM RSA private key of ENTRA_CLIENT_CERTIFICATE_FILE."),
        Setting("AZURE_FEDERATED_TOKEN_FILE", section: "Browser sign-in", "Workload identity federation: the projected token file, read on each redemption and sent as the client assertion."),
        Setting("OIDC_DISCOVERY_URL", default: "https://{ENTRA_AUTHORITY_HOST}/{tenant}/v2.0/.well-known/openid-configuration", section: "Browser sign-in", "Discovery document of the sign-in provider (https; http only for loopback). Its endpoints, `issuer` and `jwks_uri` serve the browser sign-in only; its `token_endpoint` also issues the application token of GROUPS_FROM_GRAPH."),
        Setting("PUBLIC_URL", section: "Browser sign-in", "`https://host[:port]` browsers use; the redirect URI is `{PUBLIC_URL}{AUTH_PATH_PREFIX}callback`. Unset: from Host and the trusted forwarding fields."),
        Setting("SIGN_IN_SCOPES", default: "openid profile email", section: "Browser sign-in", "Scopes requested at sign-in (space-separated; `openid` is required)."),
        Setting("SIGN_OUT", default: "local", section: "Browser sign-in", "`local`: logout shows the signed-out page; `entra`: it also ends the provider's session (end-session endpoint)."),
        Setting("SIGN_IN_RATE_LIMIT", default: "60", section: "Browser sign-in", "Sign-in starts (`login` and the redirect of a navigation) allowed per minute per client address (the peer, or from `TRUSTED_PROXIES` the rightmost untrusted `X-Forwarded-For` hop; IPv6 by /64), also the burst; beyond it an HTML 429 page with `Retry-After`. 0: no limit."),
        Setting("SIGN_IN_REDEEM_RATE_LIMIT", default: "30", section: "Browser sign-in", "Callbacks with a code (each a client-authenticated call to the token endpoint) allowed per minute per client address, also the burst; beyond it an HTML 429 page with `Retry-After`. 0: no limit."),
    ]

    /// `SESSION_SECRET` then each `SESSION_SECRET_PREVIOUS` (the state cookie's keys); empty
    /// without `SESSION_SECRET`.
    static func sessionSecrets(_ environment: [String: String]) -> [SecretBytes] {
        guard let secret = environment["SESSION_SECRET"], !secret.isEmpty else { return [] }
        var secrets = [SecretBytes(utf8: secret)]
        if let previous = environment["SESSION_SECRET_PREVIOUS"] {
            secrets += previous.split(separator: ",").map { SecretBytes(utf8: String($0)) }
        }
        return secrets
    }

    /// `OIDC_DISCOVERY_URL`, else the tenant's Entra discovery document, checked by `URLPolicy`
    /// (a problem is reported for an unusable URL). The browser sign-in and the Graph groups
    /// source both read their provider from it.
    static func readDiscoveryURL(_ reader: inout EnvironmentReader, entra: EntraConfiguration?) -> String? {
        var discoveryURL = reader.string("OIDC_DISCOVERY_URL")
        if discoveryURL == nil, let entra { discoveryURL = HTTPProviderMetadataFetcher.entraDiscoveryURL(for: entra) }
        if let discoveryURL {
            do {
                try URLPolicy.validateOutbound(url: discoveryURL, allowsCleartextOnLoopback: true)
            } catch {
                reader.report("OIDC_DISCOVERY_URL", "must be https (plain http only for a loopback address): \(error.code)")
            }
        }
        return discoveryURL
    }

    /// Reads the settings; `nil` when sign-in is off or a problem was reported.
    static func read(_ reader: inout EnvironmentReader, entra: EntraConfiguration?) -> BrowserSignInConfiguration? {
        guard reader.boolean("BROWSER_SIGN_IN", default: false) else { return nil }
        let problemsBefore = reader.problems.count
        let clientID = reader.string("ENTRA_CLIENT_ID") ?? ""
        if clientID.isEmpty { reader.report("ENTRA_CLIENT_ID", "is required when BROWSER_SIGN_IN=true (the web app registration's client id)") }
        let credential = readCredential(&reader)
        let discoveryURL = readDiscoveryURL(&reader, entra: entra)
        var publicURL = reader.string("PUBLIC_URL")
        if let text = publicURL {
            let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
            if PublicOrigin(parsing: trimmed) == nil {
                reader.report("PUBLIC_URL", "must be http(s)://host[:port] without path, query or user info, got \(text.debugDescription)")
            }
            publicURL = trimmed
        }
        let scopes = (reader.string("SIGN_IN_SCOPES") ?? defaultScopes).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," })
            .map(String.init)
        if !scopes.contains("openid") { reader.report("SIGN_IN_SCOPES", "must include openid") }
        if scopes.contains(where: { !$0.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") } }) {
            reader.report("SIGN_IN_SCOPES", "scopes are printable ASCII tokens separated by spaces")
        }
        var signOut = SignOut.local
        if let text = reader.string("SIGN_OUT") {
            if let parsed = SignOut(rawValue: text.lowercased()) { signOut = parsed } else {
                reader.report("SIGN_OUT", "must be local or entra, got \(text.debugDescription)")
            }
        }
        let secrets = sessionSecrets(reader.environment)
        if secrets.isEmpty {
            reader.report("SESSION_SECRET", "is required when BROWSER_SIGN_IN=true: a browser that signed in is kept signed in by the session cookie")
        }
        let startsPerMinute = reader.integer("SIGN_IN_RATE_LIMIT", default: defaultStartsPerMinute, in: 0...1_000_000)
        let redemptionsPerMinute = reader.integer("SIGN_IN_REDEEM_RATE_LIMIT", default: defaultRedemptionsPerMinute, in: 0...1_000_000)
        guard reader.problems.count == problemsBefore, let credential, let discoveryURL else { return nil }
        var configuration = BrowserSignInConfiguration(
            clientID: clientID, credential: credential, discoveryURL: discoveryURL, publicURL: publicURL,
            scopes: scopes.joined(separator: " "), signOut: signOut, sessionSecrets: secrets)
        configuration.startsPerMinute = startsPerMinute
        configuration.redemptionsPerMinute = redemptionsPerMinute
        return configuration
    }

    private static func readCredential(_ reader: inout EnvironmentReader) -> ClientCredential? {
        do {
            guard let credential = try ClientCredential.fromEnvironment(reader.environment) else {
                reader.report(
                    "ENTRA_CLIENT_SECRET",
                    "a client credential is required when BROWSER_SIGN_IN=true: ENTRA_CLIENT_SECRET, ENTRA_CLIENT_CERTIFICATE_FILE with ENTRA_CLIENT_KEY_FILE, or AZURE_FEDERATED_TOKEN_FILE")
                return nil
            }
            return credential
        } catch {
            reader.report(error.variable, error.message)
            return nil
        }
    }
}
