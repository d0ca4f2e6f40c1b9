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
    public let name: String
    public let maxAge: Duration
    public let isSecure: Bool
    public let sameSite: SameSite
    /// Clock skew tolerated on `exp`, `nbf`, `iat` (contract/auth.md §8.4: 30 s); `fromEnvironment` sets it
    /// from `CLOCK_SKEW_LEEWAY`.
    public var leeway: Duration = ClockSkewLeeway.defaultValue

    public static let defaultName = "bms_session"
    public static let defaultMaxAge: Duration = .seconds(28800)
    /// The longest `maxAge`: 400 days, the cap user agents apply to `Max-Age` anyway
    /// (RFC 6265bis §5.6.2). It also keeps `iat + maxAge` (the cookie's `exp`) far inside Int64.
    public static let longestMaxAge: Duration = .seconds(400 * 86_400)

    /// - Parameter secrets: the signing secret first, then previous secrets still accepted.
    /// - Throws: `AuthError(.configuration)`: no secret, a secret under 32 bytes, `maxAge` not positive
    ///   or longer than `longestMaxAge`, a `__Host-` name without `Secure`.
    public init(
        secrets: [SecretBytes],
        name: String = SessionCookieSettings.defaultName,
        maxAge: Duration = SessionCookieSettings.defaultMaxAge,
        isSecure: Bool = true,
        sameSite: SameSite = .lax
    ) throws(AuthError) {
        guard !secrets.isEmpty else { throw AuthError(.configuration, "session secret is required") }
        guard secrets.allSatisfy({ $0.count >= 32 }) else {
            throw AuthError(.configuration, "session secret must be at least 32 bytes")
        }
        guard maxAge > .zero else { throw AuthError(.configuration, "session max age must be positive") }
        guard maxAge <= Self.longestMaxAge else {
            throw AuthError(.configuration, "session max age must be at most \(Self.longestMaxAge.components.seconds) seconds (400 days)")
        }
        guard Self.isToken(name) else { throw AuthError(.configuration, "session cookie name is not a valid cookie name") }
        if name.hasPrefix("__Host-") && !isSecure {
            throw AuthError(.configuration, "a __Host- cookie name requires secure cookies")
        }
        var keys = [HMACSHA256]()
        for secret in secrets {
            do {
                keys.append(try HMACSHA256(key: secret))
            } catch {
                throw AuthError(.configuration, "session secret rejected: \(error.code)")
            }
        }
        self.keys = keys
        self.name = name
        self.maxAge = maxAge
        self.isSecure = isSecure
        self.sameSite = sameSite
    }

    /// RFC 6265 §4.1.1 cookie-name = token (RFC 2616 §2.2).
    static func isToken(_ text: String) -> Bool {
        let separators = Set("()<>@,;:\\\"/[]?={} \t".utf8)
        return !text.isEmpty && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && !separators.contains($0) }
    }
}
