import AppNativeCrypto

extension SessionCookieSettings {
    /// Reads `SESSION_SECRET`, `SESSION_SECRET_PREVIOUS` (comma-separated), `SESSION_COOKIE_NAME`,
    /// `SESSION_MAX_AGE` (seconds), `SESSION_SECURE` (`true`/`false`), `SESSION_SAME_SITE` (`lax`/`strict`),
    /// and the leeway shared with tokens, `CLOCK_SKEW_LEEWAY` (`ClockSkewLeeway`).
    ///
    /// - Returns: `nil` when `SESSION_SECRET` is unset or empty (no session store: cookie-only
    ///   requests get 401).
    /// - Throws: `AuthError(.configuration)` naming the variable.
    public static func fromEnvironment(_ environment: [String: String]) throws(AuthError) -> SessionCookieSettings? {
        guard let secret = environment["SESSION_SECRET"], !secret.isEmpty else { return nil }
        var secrets = [SecretBytes(utf8: secret)]
        if let previous = environment["SESSION_SECRET_PREVIOUS"] {
            secrets += previous.split(separator: ",").map { SecretBytes(utf8: String($0)) }
        }
        let maxAge: Duration
        if let text = environment["SESSION_MAX_AGE"], !text.isEmpty {
            let longest = SessionCookieSettings.longestMaxAge.components.seconds
            guard let seconds = Int64(text), seconds > 0, seconds <= longest else {
                throw AuthError(.configuration, "SESSION_MAX_AGE must be a positive number of seconds, at most \(longest) (400 days)")
            }
            maxAge = .seconds(seconds)
        } else {
            maxAge = defaultMaxAge
        }
        let isSecure: Bool
        switch environment["SESSION_SECURE"]?.lowercased() {
        case nil, "", "true", "1", "yes": isSecure = true
        case "false", "0", "no": isSecure = false
        default: throw AuthError(.configuration, "SESSION_SECURE must be true or false")
        }
        let sameSite: SameSite
        switch environment["SESSION_SAME_SITE"]?.lowercased() {
        case nil, "", "lax": sameSite = .lax
        case "strict": sameSite = .strict
        default: throw AuthError(.configuration, "SESSION_SAME_SITE must be lax or strict")
        }
        var settings: SessionCookieSettings
        do {
            settings = try SessionCookieSettings(
                secrets: secrets,
                name: environment["SESSION_COOKIE_NAME"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultName,
                maxAge: maxAge,
                isSecure: isSecure,
                sameSite: sameSite
            )
        } catch {
            throw AuthError(.configuration, "SESSION_*: \(error.reason)")
        }
        settings.leeway = try ClockSkewLeeway.fromEnvironment(environment)
        return settings
    }
}
