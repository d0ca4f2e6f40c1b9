public import AppNativeCrypto

/// Session cookie settings (contract/auth.md §8.1), with secret rotation: several secrets are accepted,
/// the first one signs.
public struct SessionCookieSettings: Sendable {
    public enum SameSite: String, Sendable {
        case lax = "Lax"
        case strict = "Strict"
    }

    /// HMAC keys, the signing one first. Cookies signed by any of them are read.
    let keys: [HMACSHA256]
    /// This deployment's entry in the cookie's `aud`, next to the reference's constant: a cookie
    /// whose `aud` does not name it is refused, so two deployments that share the secret do not
    /// accept each other's cookies (`SESSION_AUDIENCE`, by default derived from the deployment's
    /// Entra applications).
    public let audience: String
    /// Whether a cookie whose `aud` is only the reference's constant (one the Python reference
    /// issued) is read: the migration of docs/migration.md step 1 (`SESSION_ACCEPT_REFERENCE_COOKIES`).
    public let acceptsReferenceCookies: Bool
    public let name: String
    public let maxAge: Duration
    public let isSecure: Bool
    public let sameSite: SameSite
    /// Clock skew tolerated on `exp`, `nbf`, `iat`: the contract's fixed 30 s (contract/auth.md
    /// §8.4), which every replica reading a cookie another one issued applies alike. Entra tokens
    /// have their own, `CLOCK_SKEW_LEEWAY`.
    public static let leeway: Duration = .seconds(30)
    /// `SessionCookieSettings.leeway`.
    public var leeway: Duration { Self.leeway }

    public static let defaultName = "bms_session"
    public static let defaultMaxAge: Duration = .seconds(28800)
    /// The longest `maxAge`: 400 days, the cap user agents apply to `Max-Age` anyway
    /// (RFC 6265bis §5.6.2). It also keeps `iat + maxAge` (the cookie's `exp`) far inside Int64.
    public static let longestMaxAge: Duration = .seconds(400 * 86_400)
    /// The longest `audience` in UTF-8 bytes: it travels in every cookie.
    public static let longestAudience = 256

    /// - Parameters:
    ///   - secrets: the signing secret first, then previous secrets still accepted.
    ///   - audience: this deployment's `aud` entry (`SESSION_AUDIENCE`).
    ///   - acceptsReferenceCookies: read cookies that name no deployment (the reference's).
    /// - Throws: `AuthError(.configuration)`: no secret, a secret under 32 bytes, an audience that
    ///   is empty, longer than `longestAudience`, not visible ASCII or the reference's constant,
    ///   `maxAge` not positive or longer than `longestMaxAge`, a `__Host-` name without `Secure`.
    public init(
        secrets: [SecretBytes],
        audience: String,
        acceptsReferenceCookies: Bool = false,
        name: String = SessionCookieSettings.defaultName,
        maxAge: Duration = SessionCookieSettings.defaultMaxAge,
        isSecure: Bool = true,
        sameSite: SameSite = .lax
    ) throws(AuthError) {
        guard !secrets.isEmpty else { throw AuthError(.configuration, "session secret is required", setting: "SESSION_SECRET") }
        if let short = secrets.firstIndex(where: { $0.count < 32 }) {
            // The first signs (`SESSION_SECRET`); the others are only accepted (`SESSION_SECRET_PREVIOUS`).
            throw AuthError(.configuration, "session secret must be at least 32 bytes", setting: short == 0 ? "SESSION_SECRET" : "SESSION_SECRET_PREVIOUS")
        }
        try Self.validate(audience: audience)
        guard maxAge > .zero else { throw AuthError(.configuration, "session max age must be positive", setting: "SESSION_MAX_AGE") }
        guard maxAge <= Self.longestMaxAge else {
            throw AuthError(
                .configuration, "session max age must be at most \(Self.longestMaxAge.components.seconds) seconds (400 days)", setting: "SESSION_MAX_AGE")
        }
        guard Self.isToken(name) else {
            throw AuthError(.configuration, "session cookie name is not a valid cookie name", setting: "SESSION_COOKIE_NAME")
        }
        if name.hasPrefix("__Host-") && !isSecure {
            throw AuthError(.configuration, "a __Host- cookie name requires secure cookies", setting: "SESSION_COOKIE_NAME")
        }
        var keys = [HMACSHA256]()
        for secret in secrets {
            do {
                keys.append(try HMACSHA256(key: secret))
            } catch {
                throw AuthError(.configuration, "session secret rejected: \(error.code)", setting: "SESSION_SECRET")
            }
        }
        self.keys = keys
        self.audience = audience
        self.acceptsReferenceCookies = acceptsReferenceCookies
        self.name = name
        self.maxAge = maxAge
        self.isSecure = isSecure
        self.sameSite = sameSite
    }

    /// A deployment's `aud` entry: 1 to `longestAudience` visible ASCII characters (it is compared
    /// byte for byte, so nothing may hide in it), and never the reference's constant, which names
    /// no deployment.
    static func validate(audience: String) throws(AuthError) {
        guard !audience.isEmpty, audience.utf8.count <= longestAudience,
            audience.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else {
            throw AuthError(
                .configuration,
                "session audience (SESSION_AUDIENCE) must be 1 to \(longestAudience) visible ASCII characters", setting: audienceVariable)
        }
        guard audience != SessionCookieCodec.audience else {
            throw AuthError(
                .configuration, "session audience (SESSION_AUDIENCE) must name this deployment, not be the reference's constant",
                setting: audienceVariable)
        }
    }

    /// RFC 6265 §4.1.1 cookie-name = token (RFC 2616 §2.2).
    static func isToken(_ text: String) -> Bool {
        let separators = Set("()<>@,;:\\\"/[]?={} \t".utf8)
        return !text.isEmpty && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && !separators.contains($0) }
    }
}
