import AppNativeCore
import AppNativeCrypto

extension SessionCookieSettings {
    /// Reads `SESSION_SECRET`, `SESSION_SECRET_PREVIOUS` (comma-separated), `SESSION_COOKIE_NAME`,
    /// `SESSION_MAX_AGE` (seconds), `SESSION_SECURE` (a ``BooleanSetting``), `SESSION_SAME_SITE` (`lax`/`strict`),
    /// `SESSION_AUDIENCE` (`audience(fromEnvironment:)`) and `SESSION_ACCEPT_REFERENCE_COOKIES`
    /// (a ``BooleanSetting``). The leeway is the contract's fixed 30 s, not a setting.
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
                throw AuthError(
                    .configuration, "SESSION_MAX_AGE must be a positive number of seconds, at most \(longest) (400 days)", setting: "SESSION_MAX_AGE")
            }
            maxAge = .seconds(seconds)
        } else {
            maxAge = defaultMaxAge
        }
        let isSecure: Bool, acceptsReferenceCookies: Bool
        do {
            isSecure = try BooleanSetting.read("SESSION_SECURE", from: environment, default: true)
            acceptsReferenceCookies = try BooleanSetting.read(referenceCookiesVariable, from: environment, default: false)
        } catch {
            throw AuthError(.configuration, error.description, setting: error.setting)
        }
        let sameSite: SameSite
        switch environment["SESSION_SAME_SITE"]?.lowercased() {
        case nil, "", "lax": sameSite = .lax
        case "strict": sameSite = .strict
        default: throw AuthError(.configuration, "SESSION_SAME_SITE must be lax or strict", setting: "SESSION_SAME_SITE")
        }
        let audience = try audience(fromEnvironment: environment)
        do {
            return try SessionCookieSettings(
                secrets: secrets,
                audience: audience,
                acceptsReferenceCookies: acceptsReferenceCookies,
                name: environment["SESSION_COOKIE_NAME"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultName,
                maxAge: maxAge,
                isSecure: isSecure,
                sameSite: sameSite
            )
        } catch {
            throw AuthError(.configuration, "SESSION_*: \(error.reason)", setting: error.setting ?? "SESSION_SECRET")
        }
    }

    /// The variable naming this deployment's `aud` entry.
    public static let audienceVariable = "SESSION_AUDIENCE"
    /// The migration switch: read the reference's cookies, which name no deployment.
    public static let referenceCookiesVariable = "SESSION_ACCEPT_REFERENCE_COOKIES"
    /// What `audience(fromEnvironment:)` reports when nothing names the deployment.
    public static let undeterminedAudience = "SESSION_AUDIENCE is not set and there is no Entra client id to derive it from"

    /// This deployment's `aud` entry: `SESSION_AUDIENCE` (trimmed) when set, else `appnative:`
    /// followed by the Entra applications a user of this deployment signs in to, sorted and
    /// joined by `,`: `ENTRA_API_CLIENT_ID` (access-token mode) or the `ENTRA_AUDIENCE` list
    /// (ID-token mode), and `ENTRA_CLIENT_ID` (the browser sign-in's web app) when set. Two
    /// deployments with different applications (each with its own user assignment) therefore
    /// refuse each other's cookies without any setting; replicas of one deployment agree.
    ///
    /// - Throws: `AuthError(.configuration)` when the value is invalid or cannot be derived.
    public static func audience(fromEnvironment environment: [String: String]) throws(AuthError) -> String {
        let configured = environment[audienceVariable]?.trimmingWhitespace() ?? ""
        if !configured.isEmpty {
            try validate(audience: configured)
            return configured
        }
        let apiClientID = environment["ENTRA_API_CLIENT_ID"]?.trimmingWhitespace() ?? ""
        var applications = apiClientID.isEmpty ? EntraConfiguration.commaList(environment["ENTRA_AUDIENCE"]) : [apiClientID]
        guard !applications.isEmpty else { throw AuthError(.configuration, undeterminedAudience, setting: audienceVariable) }
        if let webApp = environment["ENTRA_CLIENT_ID"]?.trimmingWhitespace(), !webApp.isEmpty { applications.append(webApp) }
        let derived = "appnative:" + Set(applications).sorted().joined(separator: ",")
        do {
            try validate(audience: derived)
        } catch {
            throw AuthError(
                .configuration, "\(audienceVariable): the value derived from the Entra client ids is not usable (\(error.reason)); set it",
                setting: audienceVariable)
        }
        return derived
    }
}
