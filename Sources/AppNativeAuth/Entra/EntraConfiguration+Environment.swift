extension EntraConfiguration {
    /// Builds the configuration from environment variables (contract/auth.md §9.2), plus the settings the
    /// Python reference lacks: `ENTRA_AUTHORITY_HOST`, `ENTRA_JWKS_URL`, `CLOCK_SKEW_LEEWAY`
    /// (the token leeway, by default the library's 60 s; session cookies keep their own 30 s),
    /// `ENTRA_REQUIRED_SCOPES` and `ENTRA_APP_CLIENTS`.
    ///
    /// `ENTRA_AUDIENCE` accepts ID tokens, `ENTRA_API_CLIENT_ID` access tokens; both set accepts
    /// both kinds.
    ///
    /// - Throws: `AuthError(.configuration)`: neither kind complete ("not configured"), a setting
    ///   of access tokens without `ENTRA_API_CLIENT_ID`, or an invalid value.
    public static func fromEnvironment(_ environment: [String: String]) throws(AuthError) -> EntraConfiguration {
        var configuration = try kindsFromEnvironment(environment)
        configuration.leeway = try ClockSkewLeeway.fromEnvironment(environment)
        return configuration
    }

    private static func kindsFromEnvironment(_ environment: [String: String]) throws(AuthError) -> EntraConfiguration {
        let tenant = environment["ENTRA_TENANT_ID"].map { $0.trimmingWhitespace() } ?? ""
        let audiences = commaList(environment["ENTRA_AUDIENCE"])
        let apiClientID = environment["ENTRA_API_CLIENT_ID"].map { $0.trimmingWhitespace() } ?? ""
        let extraAudiences = commaList(environment["ENTRA_ALLOWED_AUDIENCES"])
        let authorityHost = environment["ENTRA_AUTHORITY_HOST"].map { $0.trimmingWhitespace() }
            .flatMap { $0.isEmpty ? nil : $0 } ?? defaultAuthorityHost
        let jwksURL = environment["ENTRA_JWKS_URL"].map { $0.trimmingWhitespace() }.flatMap { $0.isEmpty ? nil : $0 }
        let notConfigured = AuthError(
            .configuration,
            "Entra sign-in is not configured: set ENTRA_TENANT_ID and ENTRA_AUDIENCE (ID tokens), ENTRA_API_CLIENT_ID (access tokens) or both",
            setting: "ENTRA_TENANT_ID"
        )
        guard !tenant.isEmpty, !audiences.isEmpty || !apiClientID.isEmpty else { throw notConfigured }
        let scopesText = environment["ENTRA_REQUIRED_SCOPES"]
        let appClientsText = environment["ENTRA_APP_CLIENTS"]
        var accessTokens: AccessTokenRules?
        if apiClientID.isEmpty {
            for (name, value) in [("ENTRA_REQUIRED_SCOPES", scopesText), ("ENTRA_APP_CLIENTS", appClientsText)]
            where !(value?.trimmingWhitespace().isEmpty ?? true) {
                throw AuthError(.configuration, "\(name) applies to access tokens: it needs ENTRA_API_CLIENT_ID", setting: name)
            }
        } else {
            var scopes = ["access_as_user"]
            if let scopesText, !scopesText.trimmingWhitespace().isEmpty {
                scopes = commaList(scopesText)
                guard !scopes.isEmpty else {
                    throw AuthError(.configuration, "ENTRA_REQUIRED_SCOPES must name at least one scope", setting: "ENTRA_REQUIRED_SCOPES")
                }
            }
            accessTokens = try AccessTokenRules(
                apiClientID: apiClientID, requiredScopes: scopes, extraAudiences: extraAudiences,
                appClients: commaList(appClientsText))
        }
        return try EntraConfiguration(
            tenantID: tenant,
            idTokenAudiences: audiences.isEmpty ? nil : audiences,
            accessTokens: accessTokens,
            authorityHost: authorityHost,
            jwksURL: jwksURL
        )
    }

    /// A comma-separated list, each entry trimmed, blanks dropped.
    static func commaList(_ value: String?) -> [String] {
        guard let value else { return [] }
        return value.split(separator: ",", omittingEmptySubsequences: false)
            .map { String($0).trimmingWhitespace() }
            .filter { !$0.isEmpty }
    }
}
