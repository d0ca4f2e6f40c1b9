import AppNativeCore

extension ClientCredential {
    /// A problem with the credential settings, named by the variable to fix.
    public struct SettingError: Error, Sendable, Equatable {
        public let variable: String
        public let message: String

        public init(variable: String, message: String) {
            self.variable = variable
            self.message = message
        }
    }

    /// The credential the environment configures, or nil when none is set (a configuration that
    /// turns the browser sign-in on must then report the credential as missing):
    ///
    /// - `ENTRA_CLIENT_SECRET`: a client secret;
    /// - `ENTRA_CLIENT_CERTIFICATE_FILE` and `ENTRA_CLIENT_KEY_FILE` together: a certificate and its
    ///   key, both read and checked now, so `config check` finds a wrong file;
    /// - `AZURE_FEDERATED_TOKEN_FILE`: the token file Azure Workload Identity projects; it is read
    ///   at each redemption, not now (it may appear after the gateway starts).
    ///
    /// Blank values count as unset. A secret is taken as written: a trailing newline from a secrets
    /// file is refused rather than silently sent.
    ///
    /// - Throws: `SettingError` when more than one credential is set, a certificate lacks its key
    ///   (or the reverse), the secret has surrounding whitespace, or the certificate files do not load.
    public static func fromEnvironment(_ environment: [String: String]) throws(SettingError) -> ClientCredential? {
        func value(_ name: String) -> String? {
            guard let text = environment[name], !text.allSatisfy(\.isWhitespace) else { return nil }
            return text
        }
        let secret = value("ENTRA_CLIENT_SECRET")
        let certificateFile = value("ENTRA_CLIENT_CERTIFICATE_FILE")
        let keyFile = value("ENTRA_CLIENT_KEY_FILE")
        let tokenFile = value("AZURE_FEDERATED_TOKEN_FILE")
        let chosen = [secret != nil, certificateFile != nil || keyFile != nil, tokenFile != nil].filter { $0 }.count
        guard chosen <= 1 else {
            throw SettingError(
                variable: "ENTRA_CLIENT_SECRET",
                message: "set one client credential: ENTRA_CLIENT_SECRET, or ENTRA_CLIENT_CERTIFICATE_FILE with ENTRA_CLIENT_KEY_FILE, or AZURE_FEDERATED_TOKEN_FILE"
            )
        }
        if let secret {
            guard secret.first?.isWhitespace != true, secret.last?.isWhitespace != true else {
                throw SettingError(variable: "ENTRA_CLIENT_SECRET", message: "must not begin or end with whitespace")
            }
            return .secret(Secret(secret))
        }
        if certificateFile != nil || keyFile != nil {
            guard let certificateFile else {
                throw SettingError(variable: "ENTRA_CLIENT_CERTIFICATE_FILE", message: "required with ENTRA_CLIENT_KEY_FILE")
            }
            guard let keyFile else {
                throw SettingError(variable: "ENTRA_CLIENT_KEY_FILE", message: "required with ENTRA_CLIENT_CERTIFICATE_FILE")
            }
            do {
                return try .certificate(certificateFile: certificateFile, privateKeyFile: keyFile)
            } catch {
                let variable = error.isAboutKeyFile ? "ENTRA_CLIENT_KEY_FILE" : "ENTRA_CLIENT_CERTIFICATE_FILE"
                throw SettingError(variable: variable, message: error.credentialReason)
            }
        }
        if let tokenFile { return .federatedTokenFile(path: tokenFile) }
        return nil
    }
}

extension SignInProviderError {
    fileprivate var credentialReason: String {
        if case .credential(let reason) = self { return reason }
        return reasonCode
    }

    fileprivate var isAboutKeyFile: Bool { credentialReason.hasPrefix("client key") }
}
