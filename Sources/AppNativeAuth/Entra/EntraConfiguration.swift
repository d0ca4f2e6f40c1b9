import AppNativeCore
import AppNativeClient

/// How the Entra ID verifier is set up (contract/auth.md §4 and §9): which token kinds it
/// accepts, each with its own rules. ID tokens (`idTokens`), access tokens for the backend's API
/// (`accessTokens`), or both at once (an app migrating from one to the other sends both).
public struct EntraConfiguration: Sendable {
    /// The rules of ID tokens: the iOS app's registration (`ENTRA_AUDIENCE`).
    public struct IDTokenRules: Sendable, Equatable {
        /// The app's client ids; an ID token's `aud` must be one of them.
        public let audiences: [String]
    }

    /// The rules of access tokens for the backend's API registration (`ENTRA_API_CLIENT_ID`).
    public struct AccessTokenRules: Sendable, Equatable {
        /// The API's client id: v2 tokens carry it as `aud`, v1 tokens `api://{id}`.
        public let apiClientID: String
        /// A delegated token (a user's, with `scp`) needs at least one of these scopes
        /// (`ENTRA_REQUIRED_SCOPES`, default `access_as_user`).
        public let requiredScopes: [String]
        /// Further accepted `aud` values (`ENTRA_ALLOWED_AUDIENCES`: a custom App ID URI).
        public let extraAudiences: [String]
        /// Client application ids allowed to call with app-only tokens (`ENTRA_APP_CLIENTS`);
        /// empty: app-only tokens are refused (`app_only`).
        public let appClients: [String]

        /// - Throws: `AuthError(.configuration)` for a blank API client id, no scope, a scope that is
        ///   blank or contains whitespace, or a blank client id in `appClients`.
        public init(
            apiClientID: String, requiredScopes: [String] = ["access_as_user"], extraAudiences: [String] = [], appClients: [String] = []
        ) throws(AuthError) {
            let clientID = apiClientID.trimmingWhitespace()
            guard !clientID.isEmpty else { throw AuthError(.configuration, "API client id must not be blank", setting: "ENTRA_API_CLIENT_ID") }
            guard !requiredScopes.isEmpty,
                requiredScopes.allSatisfy({ !$0.isEmpty && !$0.unicodeScalars.contains(where: { $0.properties.isWhitespace }) })
            else {
                throw AuthError(
                    .configuration, "required scopes (ENTRA_REQUIRED_SCOPES) must be one or more non-blank names without spaces",
                    setting: "ENTRA_REQUIRED_SCOPES")
            }
            guard appClients.allSatisfy({ !$0.isEmpty && !$0.unicodeScalars.contains(where: { $0.properties.isWhitespace }) }) else {
                throw AuthError(.configuration, "app clients (ENTRA_APP_CLIENTS) must be client ids without spaces", setting: "ENTRA_APP_CLIENTS")
            }
            self.apiClientID = clientID
            self.requiredScopes = requiredScopes
            self.extraAudiences = extraAudiences
            self.appClients = appClients
        }

        /// `aud` values of the API: `{id}`, `api://{id}`, then the extra ones; de-duplicated, order kept.
        public var audiences: [String] {
            var out = [String]()
            for audience in [apiClientID, "api://\(apiClientID)"] + extraAudiences where !out.contains(audience) { out.append(audience) }
            return out
        }
    }

    /// The tenant GUID, lower-cased.
    public let tenantID: String
    /// ID tokens accepted when set.
    public let idTokens: IDTokenRules?
    /// Access tokens accepted when set. At least one of `idTokens` and `accessTokens` is set.
    public let accessTokens: AccessTokenRules?
    /// The login host: `login.microsoftonline.com`, or a sovereign cloud's
    /// (`login.microsoftonline.us`, `login.partner.microsoftonline.cn`).
    public let authorityHost: String
    /// Where keys come from; only this URL, never a token's `jku`/`x5u`.
    public let jwksURL: String
    /// Clock skew tolerated on `exp`, `nbf`, `iat` (contract/auth.md §3: 60 s); `fromEnvironment` sets it
    /// from `CLOCK_SKEW_LEEWAY` (`ClockSkewLeeway`).
    public var leeway: Duration = ClockSkewLeeway.defaultValue
    /// Tokens claiming to live longer than this are refused (Entra's configurable maximum is 24 h).
    public var maxLifetime: Duration = .seconds(86400)
    /// Tokens longer than this are refused before decoding.
    public var maxTokenBytes = 16384

    /// ID tokens only.
    ///
    /// - Throws: `AuthError(.configuration)` naming the tenant or audience problem.
    public init(
        tenantID: String,
        audiences: [String],
        authorityHost: String = EntraConfiguration.defaultAuthorityHost,
        jwksURL: String? = nil
    ) throws(AuthError) {
        try self.init(tenantID: tenantID, idTokenAudiences: audiences, accessTokens: nil, authorityHost: authorityHost, jwksURL: jwksURL)
    }

    /// Access tokens only, with one required scope.
    ///
    /// - Throws: `AuthError(.configuration)` for a bad tenant, a blank API client id or a scope that is
    ///   blank or contains whitespace.
    public init(
        tenantID: String,
        apiClientID: String,
        requiredScope: String = "access_as_user",
        extraAudiences: [String] = [],
        authorityHost: String = EntraConfiguration.defaultAuthorityHost,
        jwksURL: String? = nil
    ) throws(AuthError) {
        try self.init(
            tenantID: tenantID,
            idTokenAudiences: nil,
            accessTokens: AccessTokenRules(apiClientID: apiClientID, requiredScopes: [requiredScope], extraAudiences: extraAudiences),
            authorityHost: authorityHost,
            jwksURL: jwksURL
        )
    }

    /// Any combination: ID tokens when `idTokenAudiences` is given, access tokens when
    /// `accessTokens` is; both accepts both kinds, each with its own rules.
    ///
    /// - Throws: `AuthError(.configuration)`: neither kind, a blank audience, an ID-token audience
    ///   that is also one of the API's (a token's kind would be ambiguous), a bad tenant, host or URL.
    public init(
        tenantID: String,
        idTokenAudiences: [String]?,
        accessTokens: AccessTokenRules?,
        authorityHost: String = EntraConfiguration.defaultAuthorityHost,
        jwksURL: String? = nil
    ) throws(AuthError) {
        if let audiences = idTokenAudiences {
            guard !audiences.isEmpty, audiences.allSatisfy({ !$0.trimmingWhitespace().isEmpty }) else {
                throw AuthError(.configuration, "audience: at least one non-blank audience is required", setting: "ENTRA_AUDIENCE")
            }
        }
        guard idTokenAudiences != nil || accessTokens != nil else {
            throw AuthError(.configuration, "Entra sign-in is not configured: accept ID tokens, access tokens or both", setting: "ENTRA_TENANT_ID")
        }
        if let audiences = idTokenAudiences, let accessTokens,
            let shared = audiences.first(where: accessTokens.audiences.contains)
        {
            throw AuthError(
                .configuration,
                "audience \(shared) is both an ID-token audience (ENTRA_AUDIENCE) and one of the API's: a token's kind would be ambiguous",
                setting: "ENTRA_AUDIENCE"
            )
        }
        try self.init(
            tenantID: tenantID, idTokens: idTokenAudiences.map(IDTokenRules.init), accessTokens: accessTokens,
            authorityHost: authorityHost, jwksURL: jwksURL)
    }

    private init(
        tenantID: String, idTokens: IDTokenRules?, accessTokens: AccessTokenRules?, authorityHost: String, jwksURL: String?
    ) throws(AuthError) {
        // Not trimmed here: a trailing newline from a secrets file is an error, not silently fixed.
        guard Self.isTenantGUID(tenantID) else {
            throw AuthError(
                .configuration,
                "tenant id must be the tenant GUID (common, organizations, consumers and domain names are refused)",
                setting: "ENTRA_TENANT_ID"
            )
        }
        guard Self.isHostName(authorityHost) else {
            throw AuthError(
                .configuration, "authority host must be a bare host name such as login.microsoftonline.com", setting: "ENTRA_AUTHORITY_HOST")
        }
        if let jwksURL {
            do {
                try URLPolicy.validateOutbound(url: jwksURL, allowsCleartextOnLoopback: true)
            } catch {
                throw AuthError(
                    .configuration, "JWKS URL must be https (plain http only for a loopback address): \(error.code)", setting: "ENTRA_JWKS_URL")
            }
        }
        self.tenantID = tenantID.lowercased()
        self.idTokens = idTokens
        self.accessTokens = accessTokens
        self.authorityHost = authorityHost.lowercased()
        self.jwksURL = jwksURL ?? "https://\(self.authorityHost)/\(self.tenantID)/discovery/v2.0/keys"
    }

    public static let defaultAuthorityHost = "login.microsoftonline.com"

    /// The v2 issuer `https://{host}/{tenant}/v2.0` (ID tokens, v2 access tokens).
    public var v2Issuer: String { "https://\(authorityHost)/\(tenantID)/v2.0" }

    /// The v1 issuer `https://sts.windows.net/{tenant}/` (v1 access tokens), `nil` for a cloud without one.
    public var v1Issuer: String? { Self.v1IssuerHosts[authorityHost].map { "https://\($0)/\(tenantID)/" } }

    /// `iss` values accepted (contract/auth.md §4): the v2 issuer; with access tokens also the v1 `sts` issuer.
    public var allowedIssuers: [String] {
        guard accessTokens != nil, let v1Issuer else { return [v2Issuer] }
        return [v2Issuer, v1Issuer]
    }

    /// `aud` values accepted (contract/auth.md §4): the ID-token audiences, then the API's;
    /// de-duplicated, order kept. Which kind a token is follows from the one it names.
    public var allowedAudiences: [String] {
        var out = [String]()
        for audience in (idTokens?.audiences ?? []) + (accessTokens?.audiences ?? []) where !out.contains(audience) {
            out.append(audience)
        }
        return out
    }

    /// The JWT policy that the generic checks enforce for this configuration.
    public var policy: JWTPolicy {
        JWTPolicy(
            algorithm: .rs256,
            issuers: allowedIssuers,
            audiences: allowedAudiences,
            leeway: leeway,
            maxLifetime: maxLifetime,
            maxTokenBytes: maxTokenBytes,
            requiresKeyID: true
        )
    }

    /// v1 (`sts`) issuer host per login host, for access tokens with `accessTokenAcceptedVersion` 1.
    static let v1IssuerHosts: [String: String] = [
        "login.microsoftonline.com": "sts.windows.net",
        "login.microsoftonline.us": "sts.usgovcloudapi.net",
        "login.partner.microsoftonline.cn": "sts.chinacloudapi.cn",
    ]

    static func isTenantGUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                if byte != UInt8(ascii: "-") { return false }
            } else if !byte.isHexDigit {
                return false
            }
        }
        return true
    }

    static func isHostName(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 253 else { return false }
        return text.utf8.allSatisfy { $0.isHexDigit || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z"))
            || ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
    }
}

extension UInt8 {
    var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
