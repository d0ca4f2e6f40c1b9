extension EntraConfiguration {
    /// Builds the configuration from environment variables (contract/auth.md §9.2), plus the settings the
    /// Python reference lacks: `ENTRA_AUTHORITY_HOST`, `ENTRA_JWKS_URL` and `CLOCK_SKEW_LEEWAY`
    /// (the token leeway, by default the library's 60 s; session cookies keep their own 30 s).
    ///
    /// - Throws: `AuthError(.configuration)`: both `ENTRA_API_CLIENT_ID` and `ENTRA_AUDIENCE` set
    ///   ("set one, not both"), or neither mode complete ("not configured"), or an invalid value.
    public static func fromEnvironment(_ environment: [String: String]) throws(AuthError) -> EntraConfiguration {
        var configuration = try modeFromEnvironment(environment)
        configuration.leeway = try ClockSkewLeeway.fromEnvironment(environment)
        return configuration
    }

    private static func modeFromEnvironment(_ environment: [String: String]) throws(AuthError) -> EntraConfiguration {
        let tenant = environment["ENTRA_TENANT_ID"].map { $0.trimmingWhitespace() } ?? ""
        let audiences = commaList(environment["ENTRA_AUDIENCE"])
        let apiClientID = environment["ENTRA_API_CLIENT_ID"].map { $0.trimmingWhitespace() } ?? ""
        let extraAudiences = commaList(environment["ENTRA_ALLOWED_AUDIENCES"])
        let authorityHost = environment["ENTRA_AUTHORITY_HOST"].map { $0.trimmingWhitespace() }
            .flatMap { $0.isEmpty ? nil : $0 } ?? defaultAuthorityHost
        let jwksURL = environment["ENTRA_JWKS_URL"].map { $0.trimmingWhitespace() }.flatMap { $0.isEmpty ? nil : $0 }

        if !apiClientID.isEmpty && !(environment["ENTRA_AUDIENCE"]?.trimmingWhitespace().isEmpty ?? true) {
            throw AuthError(.configuration, "ENTRA_API_CLIENT_ID and ENTRA_AUDIENCE are both set: set one, not both")
        }
        guard !tenant.isEmpty else {
            throw AuthError(
                .configuration,
                "Entra sign-in is not configured: set ENTRA_TENANT_ID and ENTRA_AUDIENCE (ID tokens) or ENTRA_API_CLIENT_ID (access tokens)"
            )
        }
        if !apiClientID.isEmpty {
            return try EntraConfiguration(
                tenantID: tenant,
                apiClientID: apiClientID,
                extraAudiences: extraAudiences,
                authorityHost: authorityHost,
                jwksURL: jwksURL
            )
        }
        guard !audiences.isEmpty else {
            throw AuthError(
                .configuration,
                "Entra sign-in is not configured: set ENTRA_TENANT_ID and ENTRA_AUDIENCE (ID tokens) or ENTRA_API_CLIENT_ID (access tokens)"
            )
        }
        return try EntraConfiguration(tenantID: tenant, audiences: audiences, authorityHost: authorityHost, jwksURL: jwksURL)
    }

    /// A comma-separated list, each entry trimmed, blanks dropped.
    static func commaList(_ value: String?) -> [String] {
        guard let value else { return [] }
        return value.split(separator: ",", omittingEmptySubsequences: false)
            .map { String($0).trimmingWhitespace() }
            .filter { !$0.isEmpty }
    }
}
