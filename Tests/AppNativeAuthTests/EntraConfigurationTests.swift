import AppNativeAuth
import Testing

/// contract/auth.md §4 and §9: construction rules, environment decisions, issuers and audiences.
@Suite("Entra configuration")
struct EntraConfigurationTests {
    static let tenant = "1111AAAA-bbbb-4ccc-8ddd-eeeeffff0001"

    @Test("the tenant must be a GUID; well-known names and domains are refused")
    func tenantRule() throws {
        for bad in ["common", "organizations", "consumers", "contoso.onmicrosoft.com", "", Self.tenant + "\n", " " + Self.tenant,
                    "1111aaaa-bbbb-4ccc-8ddd-eeeeffff000", "1111aaaa-bbbb-4ccc-8ddd-eeeeffff00011", "1111aaaa_bbbb-4ccc-8ddd-eeeeffff0001",
                    "g111aaaa-bbbb-4ccc-8ddd-eeeeffff0001"] {
            let error = #expect(throws: AuthError.self, "\(bad.debugDescription)") { try EntraConfiguration(tenantID: bad, audiences: ["a"]) }
            #expect(error?.code == .configuration)
            #expect(error?.reason.contains("tenant") == true)
        }
        let configuration = try EntraConfiguration(tenantID: Self.tenant, audiences: ["a"])
        #expect(configuration.tenantID == Self.tenant.lowercased())
        #expect(configuration.jwksURL == "https://login.microsoftonline.com/\(Self.tenant.lowercased())/discovery/v2.0/keys")
    }

    @Test("audiences: at least one, none blank")
    func audienceRule() {
        for bad in [[], [""], ["a", " "]] as [[String]] {
            let error = #expect(throws: AuthError.self) { try EntraConfiguration(tenantID: Self.tenant, audiences: bad) }
            #expect(error?.reason.contains("audience") == true)
        }
    }

    @Test("issuers and audiences per mode")
    func modes() throws {
        let t = Self.tenant.lowercased()
        let idMode = try EntraConfiguration(tenantID: Self.tenant, audiences: ["app-1", "app-2"])
        #expect(idMode.allowedIssuers == ["https://login.microsoftonline.com/\(t)/v2.0"])
        #expect(idMode.allowedAudiences == ["app-1", "app-2"])
        let accessMode = try EntraConfiguration(tenantID: Self.tenant, apiClientID: " api ", extraAudiences: ["api", "x"])
        #expect(accessMode.allowedIssuers == ["https://login.microsoftonline.com/\(t)/v2.0", "https://sts.windows.net/\(t)/"])
        #expect(accessMode.allowedAudiences == ["api", "api://api", "x"])
        #expect(throws: AuthError(.configuration, "")) { try EntraConfiguration(tenantID: Self.tenant, apiClientID: " ") }
        #expect(throws: AuthError(.configuration, "")) {
            try EntraConfiguration(tenantID: Self.tenant, apiClientID: "api", requiredScope: "a b")
        }
    }

    @Test("sovereign clouds and an explicit JWKS URL")
    func sovereignClouds() throws {
        let t = Self.tenant.lowercased()
        let us = try EntraConfiguration(tenantID: Self.tenant, apiClientID: "api", authorityHost: "login.microsoftonline.us")
        #expect(us.allowedIssuers == ["https://login.microsoftonline.us/\(t)/v2.0", "https://sts.usgovcloudapi.net/\(t)/"])
        #expect(us.jwksURL == "https://login.microsoftonline.us/\(t)/discovery/v2.0/keys")
        let china = try EntraConfiguration(tenantID: Self.tenant, audiences: ["a"], authorityHost: "login.partner.microsoftonline.cn")
        #expect(china.allowedIssuers == ["https://login.partner.microsoftonline.cn/\(t)/v2.0"])
        let explicit = try EntraConfiguration(tenantID: Self.tenant, audiences: ["a"], jwksURL: "http://127.0.0.1:9/keys")
        #expect(explicit.jwksURL == "http://127.0.0.1:9/keys")
        #expect(throws: AuthError(.configuration, "")) {
            try EntraConfiguration(tenantID: Self.tenant, audiences: ["a"], authorityHost: "https://evil.example/x")
        }
    }

    @Test("environment decisions of §9.2")
    func environment() throws {
        let both = try EntraConfiguration.fromEnvironment(["ENTRA_TENANT_ID": Self.tenant, "ENTRA_AUDIENCE": "a", "ENTRA_API_CLIENT_ID": "b"])
        #expect(both.idTokens?.audiences == ["a"])
        #expect(both.accessTokens?.apiClientID == "b")
        for incomplete in [[:], ["ENTRA_TENANT_ID": Self.tenant], ["ENTRA_AUDIENCE": "a"], ["ENTRA_TENANT_ID": Self.tenant, "ENTRA_AUDIENCE": ","]] {
            let error = #expect(throws: AuthError.self, "\(incomplete)") { try EntraConfiguration.fromEnvironment(incomplete) }
            #expect(error?.reason.contains("not configured") == true)
        }
        let idMode = try EntraConfiguration.fromEnvironment([
            "ENTRA_TENANT_ID": " \(Self.tenant)\n", "ENTRA_AUDIENCE": " a , ,b ", "ENTRA_ALLOWED_AUDIENCES": "ignored",
        ])
        #expect(idMode.idTokens?.audiences == ["a", "b"])
        #expect(idMode.accessTokens == nil)
        let accessMode = try EntraConfiguration.fromEnvironment([
            "ENTRA_TENANT_ID": Self.tenant, "ENTRA_API_CLIENT_ID": " api ", "ENTRA_ALLOWED_AUDIENCES": "x, y",
            "ENTRA_AUTHORITY_HOST": "login.microsoftonline.us", "ENTRA_JWKS_URL": "https://keys.example/jwks",
        ])
        #expect(accessMode.accessTokens == (try EntraConfiguration.AccessTokenRules(apiClientID: "api", extraAudiences: ["x", "y"])))
        #expect(accessMode.idTokens == nil)
        #expect(accessMode.authorityHost == "login.microsoftonline.us")
        #expect(accessMode.jwksURL == "https://keys.example/jwks")
    }

    @Test("from the environment the token leeway is CLOCK_SKEW_LEEWAY (default 60 s, the reference's)")
    func leewayFromEnvironment() throws {
        let base = ["ENTRA_TENANT_ID": Self.tenant, "ENTRA_AUDIENCE": "a"]
        #expect(try EntraConfiguration.fromEnvironment(base).leeway == .seconds(60))
        #expect(try EntraConfiguration.fromEnvironment(base).policy.leeway == .seconds(60))
        #expect(try EntraConfiguration(tenantID: Self.tenant, audiences: ["a"]).leeway == ClockSkewLeeway.defaultValue)
        let configured = try EntraConfiguration.fromEnvironment(base.merging(["CLOCK_SKEW_LEEWAY": "45"]) { $1 })
        #expect(configured.leeway == .seconds(45))
        #expect(configured.policy.leeway == .seconds(45))
        let error = #expect(throws: AuthError.self) {
            try EntraConfiguration.fromEnvironment(base.merging(["CLOCK_SKEW_LEEWAY": "600"]) { $1 })
        }
        #expect(error?.reason.contains("CLOCK_SKEW_LEEWAY") == true)
    }
}
