import AppNativeGateway
import Testing

/// Every identity configuration problem names the setting to fix, carried by the error itself
/// (never found by searching its message), whichever check refused the value.
@Suite("Configuration problems name their setting")
struct ConfigurationProblemTests {
    static let secret = String(repeating: "s", count: 40)

    static let cases: [(environment: [String: String], setting: String)] = [
        (["ENTRA_TENANT_ID": "common"], "ENTRA_TENANT_ID"),
        (["ENTRA_TENANT_ID": ""], "ENTRA_TENANT_ID"),
        (["ENTRA_AUDIENCE": " , "], "ENTRA_TENANT_ID"),
        (["ENTRA_AUTHORITY_HOST": "https://login.example/"], "ENTRA_AUTHORITY_HOST"),
        (["ENTRA_JWKS_URL": "http://keys.example/keys"], "ENTRA_JWKS_URL"),
        (["ENTRA_REQUIRED_SCOPES": "a"], "ENTRA_REQUIRED_SCOPES"),
        (["ENTRA_APP_CLIENTS": "a"], "ENTRA_APP_CLIENTS"),
        (["ENTRA_API_CLIENT_ID": "api", "ENTRA_APP_CLIENTS": "a b"], "ENTRA_APP_CLIENTS"),
        (["CLOCK_SKEW_LEEWAY": "-1"], "CLOCK_SKEW_LEEWAY"),
        (["SESSION_SECRET": "short"], "SESSION_SECRET"),
        (["SESSION_SECRET": secret, "SESSION_SECRET_PREVIOUS": "short"], "SESSION_SECRET_PREVIOUS"),
        (["SESSION_SECRET": secret, "SESSION_MAX_AGE": "0"], "SESSION_MAX_AGE"),
        (["SESSION_SECRET": secret, "SESSION_SAME_SITE": "none"], "SESSION_SAME_SITE"),
        (["SESSION_SECRET": secret, "SESSION_SECURE": "maybe"], "SESSION_SECURE"),
        (["SESSION_SECRET": secret, "SESSION_COOKIE_NAME": "a b"], "SESSION_COOKIE_NAME"),
        (["SESSION_SECRET": secret, "SESSION_AUDIENCE": "a b"], "SESSION_AUDIENCE"),
        (["AUTHORIZE_CACHE_SECONDS": "1,2,3"], "AUTHORIZE_CACHE_SECONDS"),
        (["AUTHORIZE_CACHE_SECONDS": "1,"], "AUTHORIZE_CACHE_SECONDS"),
    ]

    @Test("each refused value names its setting", arguments: cases.indices)
    func namesTheSetting(index: Int) {
        let (extra, setting) = Self.cases[index]
        let environment = ProxyFixture.publicEnvironment(["UPSTREAM_URL": "http://127.0.0.1:1"]).merging(extra) { $1 }
        do {
            _ = try GatewayConfiguration.fromEnvironment(environment)
            Issue.record("\(extra) was accepted")
        } catch {
            #expect(error.problems.map(\.variable).contains(setting), "\(extra): \(error.problems)")
        }
    }

    @Test("the cache durations: allow alone, allow and deny")
    func cacheSeconds() throws {
        for text in ["30", "30,5", " 30 , 5 "] {
            let environment = ProxyFixture.publicEnvironment(["UPSTREAM_URL": "http://127.0.0.1:1", "AUTHORIZE_CACHE_SECONDS": text])
            #expect(throws: Never.self, "\(text)") { try GatewayConfiguration.fromEnvironment(environment) }
        }
    }
}
