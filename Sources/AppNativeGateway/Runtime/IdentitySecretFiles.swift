import AppNativeAPNs
import AppNativeAuth
import AppNativeCore
import AppNativeSignIn

/// The identity's secrets read from files (`SESSION_SECRET_FILE`, `SESSION_SECRET_PREVIOUS_FILE`,
/// `ASSERTION_KEYS_FILE`, `ENTRA_CLIENT_SECRET_FILE`), each a value `SIGHUP` builds again; what
/// else is keyed by the same secret follows it (the sign-in's state cookie, the token endpoint's
/// credential). A secret set in the environment has no entry: it never changes.
struct IdentitySecretFiles {
    /// The session cookie codec, when a session secret is read from a file.
    let sessionCookies: SecretFileValue<SessionCookieCodec>?
    /// The assertion signer, when `ASSERTION_KEYS_FILE` is set.
    let assertionSigners: SecretFileValue<IdentityAssertionSigner>?
    /// The client credential of the sign-in and of Graph, when `ENTRA_CLIENT_SECRET_FILE` is set.
    let clientCredential: SecretFileValue<ClientCredential>?

    init(
        _ configuration: GatewayConfiguration, cookies: SessionCookieCodec?, assertions: IdentityAssertionSigner, signIn: BrowserSignIn?,
        graphGroups: GraphGroupsSource?
    ) {
        let files = configuration.secretFiles
        let identity = configuration.identity
        sessionCookies = cookies.flatMap { cookies in
            SecretFileValue(
                "session secret", settings: ["SESSION_SECRET", "SESSION_SECRET_PREVIOUS"], files: files, current: Reloadable(cookies),
                build: { [tenantID = identity.entra.tenantID] environment throws(ConfigurationError.Problem) in
                    try Self.sessionCookies(environment, tenantID: tenantID)
                },
                didReplace: { _, environment in
                    signIn?.useSessionSecrets(BrowserSignInConfiguration.sessionSecrets(environment))
                })
        }
        assertionSigners = SecretFileValue(
            "assertion keys", settings: ["ASSERTION_KEYS"], files: files, current: Reloadable(assertions),
            build: { [audience = identity.assertionAudience] environment throws(ConfigurationError.Problem) in
                IdentityAssertionSigner(keys: try IdentityConfiguration.assertionKeys(pem: environment["ASSERTION_KEYS"] ?? ""), audience: audience)
            })
        clientCredential = (identity.browserSignIn?.credential ?? identity.graphGroups?.credential).flatMap { credential in
            SecretFileValue(
                "Entra client secret", settings: ["ENTRA_CLIENT_SECRET"], files: files, current: Reloadable(credential),
                build: { environment throws(ConfigurationError.Problem) in try Self.clientCredential(environment) },
                didReplace: { credential, _ in
                    signIn?.useCredential(credential)
                    graphGroups?.useCredential(credential)
                })
        }
    }

    /// What `SIGHUP` reads again.
    var reloadables: [any FileReloading] {
        let all: [(any FileReloading)?] = [sessionCookies, assertionSigners, clientCredential]
        return all.compactMap { $0 }
    }

    /// The session cookie codec of `environment`'s `SESSION_*` settings.
    private static func sessionCookies(_ environment: [String: String], tenantID: String) throws(ConfigurationError.Problem) -> SessionCookieCodec {
        let settings: SessionCookieSettings?
        do {
            settings = try SessionCookieSettings.fromEnvironment(environment)
        } catch {
            throw .init(variable: error.setting ?? "SESSION_SECRET", message: error.reason)
        }
        guard let settings else { throw .init(variable: "SESSION_SECRET", message: "is empty") }
        return SessionCookieCodec(settings: settings, tenantID: tenantID)
    }

    /// The client credential of `environment`'s `ENTRA_CLIENT_*` settings.
    private static func clientCredential(_ environment: [String: String]) throws(ConfigurationError.Problem) -> ClientCredential {
        let credential: ClientCredential?
        do {
            credential = try ClientCredential.fromEnvironment(environment)
        } catch {
            throw .init(variable: error.variable, message: error.message)
        }
        guard let credential else { throw .init(variable: "ENTRA_CLIENT_SECRET", message: "is empty") }
        return credential
    }
}

extension Gateway {
    /// The push API's keys and the APNs key, when read from files (`PUSH_API_KEYS_FILE`,
    /// `APNS_KEY_FILE`): the API compares keys with the ones in force, the sender asks for the
    /// credentials in force at each send (a new key replaces its connection).
    static func pushReloadables(_ api: PushAPI, _ sender: APNsSender, _ secretFiles: SecretFiles) -> [any FileReloading] {
        let keys = SecretFileValue(
            "push API keys", settings: ["PUSH_API_KEYS"], files: secretFiles, current: api.keyDigests,
            build: { environment throws(ConfigurationError.Problem) in
                var reader = EnvironmentReader(environment)
                let keys = PushAPIConfiguration.apiKeys(&reader)
                if let problem = reader.problems.first { throw problem }
                guard !keys.isEmpty else { throw .init(variable: "PUSH_API_KEYS", message: "contains no key") }
                return PushAPI.digests(of: keys)
            })
        var apnsKey: SecretFileValue<APNsConfiguration>?
        if let credentials = try? APNsConfiguration.fromEnvironment(secretFiles.environment) {
            apnsKey = SecretFileValue(
                "APNs key", settings: ["APNS_KEY"], files: secretFiles, current: Reloadable(credentials),
                build: { environment throws(ConfigurationError.Problem) in
                    do throws(APNsError) {
                        return try APNsConfiguration.fromEnvironment(environment)
                    } catch {
                        throw .init(variable: "APNS_KEY", message: error.reason)
                    }
                })
            if let current = apnsKey?.current { sender.setProvider { current.value } }
        }
        let reloadables: [(any FileReloading)?] = [keys, apnsKey]
        return reloadables.compactMap { $0 }
    }
}
