/// The clock skew tolerated on an Entra token's `exp`, `nbf` and `iat`: the setting
/// `CLOCK_SKEW_LEEWAY`, for bearer tokens (and the ID tokens of the browser sign-in) only.
///
/// The default is the reference verifier's 60 s (contract/auth.md §3 notes). Session cookies do
/// not read it: their leeway is the contract's fixed 30 s (`SessionCookieSettings.leeway`,
/// §8.4), the same in every replica that reads a cookie another one issued. A credential is
/// accepted until `exp + leeway`, so a long-lived connection closed at expiry has to wait at least
/// the larger leeway that applies (`CREDENTIAL_EXPIRY_GRACE`) or the same credential could reopen it.
public enum ClockSkewLeeway: Sendable {
    /// The environment variable.
    public static let variable = "CLOCK_SKEW_LEEWAY"
    public static let defaultValue: Duration = .seconds(60)
    /// A bound on the setting (docs/style.md §4: expiry with bounded leeway).
    public static let maximum: Duration = .seconds(300)

    /// Reads `CLOCK_SKEW_LEEWAY`: whole seconds from 0 to 300; unset or blank gives the default.
    ///
    /// - Throws: `AuthError(.configuration)` naming the variable.
    public static func fromEnvironment(_ environment: [String: String]) throws(AuthError) -> Duration {
        let text = environment[variable].map { $0.trimmingWhitespace() } ?? ""
        guard !text.isEmpty else { return defaultValue }
        guard let seconds = Int64(text), seconds >= 0, seconds <= maximum.components.seconds else {
            throw AuthError(.configuration, "\(variable) must be whole seconds from 0 to \(maximum.components.seconds)", setting: variable)
        }
        return .seconds(seconds)
    }
}
