import AppNativeCore
import AppNativeClient

/// How the Entra ID verifier is set up (contract/auth.md §4 and §9).
public struct EntraConfiguration: Sendable {
    /// Which kind of token the app sends.
    public enum Mode: Sendable, Equatable {
        /// ID tokens of the iOS app's registration: `aud` is one of its client ids; an `scp` claim is refused.
        case idToken(audiences: [String])
        /// Access tokens for the backend's API registration: `scp` must contain `requiredScope`.
        case accessToken(apiClientID: String, requiredScope: String, extraAudiences: [String])
    }

    /// The tenant GUID, lower-cased.
    public let tenantID: String
    public let mode: Mode
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

    /// ID-token mode.
    ///
    /// - Throws: `AuthError(.configuration)` naming the tenant or audience problem.
    public init(
        tenantID: String,
        audiences: [String],
        authorityHost: String = EntraConfiguration.defaultAuthorityHost,
        jwksURL: String? = nil
    ) throws(AuthError) {
        guard !audiences.isEmpty, audiences.allSatisfy({ !$0.trimmingWhitespace().isEmpty }) else {
            throw AuthError(.configuration, "audience: at least one non-blank audience is required")
        }
        try self.init(tenantID: tenantID, mode: .idToken(audiences: audiences), authorityHost: authorityHost, jwksURL: jwksURL)
    }

    /// Access-token mode.
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
        let clientID = apiClientID.trimmingWhitespace()
        guard !clientID.isEmpty else { throw AuthError(.configuration, "API client id must not be blank") }
        guard !requiredScope.isEmpty, !requiredScope.unicodeScalars.contains(where: { $0.properties.isWhitespace }) else {
            throw AuthError(.configuration, "required scope must be one non-blank token")
        }
        try self.init(
            tenantID: tenantID,
            mode: .accessToken(apiClientID: clientID, requiredScope: requiredScope, extraAudiences: extraAudiences),
            authorityHost: authorityHost,
            jwksURL: jwksURL
        )
    }

    private init(tenantID: String, mode: Mode, authorityHost: String, jwksURL: String?) throws(AuthError) {
        // Not trimmed here: a trailing newline from a secrets file is an error, not silently fixed.
        guard Self.isTenantGUID(tenantID) else {
            throw AuthError(
                .configuration,
                "tenant id must be the tenant GUID (common, organizations, consumers and domain names are refused)"
            )
        }
        guard Self.isHostName(authorityHost) else {
            throw AuthError(.configuration, "authority host must be a bare host name such as login.microsoftonline.com")
        }
        if let jwksURL {
            do {
                try URLPolicy.validateOutbound(url: jwksURL, allowsCleartextOnLoopback: true)
            } catch {
                throw AuthError(.configuration, "JWKS URL must be https (plain http only for a loopback address): \(error.code)")
            }
        }
        self.tenantID = tenantID.lowercased()
        self.mode = mode
        self.authorityHost = authorityHost.lowercased()
        self.jwksURL = jwksURL ?? "https://\(self.authorityHost)/\(self.tenantID)/discovery/v2.0/keys"
    }

    public static let defaultAuthorityHost = "login.microsoftonline.com"

    /// `iss` values accepted (contract/auth.md §4): the v2 issuer; access tokens also the v1 `sts` issuer.
    public var allowedIssuers: [String] {
        let v2 = "https://\(authorityHost)/\(tenantID)/v2.0"
        guard case .accessToken = mode, let stsHost = Self.v1IssuerHosts[authorityHost] else { return [v2] }
        return [v2, "https://\(stsHost)/\(tenantID)/"]
    }

    /// `aud` values accepted (contract/auth.md §4), de-duplicated, order kept.
    public var allowedAudiences: [String] {
        var out = [String]()
        let candidates: [String]
        switch mode {
        case .idToken(let audiences): candidates = audiences
        case .accessToken(let clientID, _, let extra): candidates = [clientID, "api://\(clientID)"] + extra
        }
        for audience in candidates where !out.contains(audience) { out.append(audience) }
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
