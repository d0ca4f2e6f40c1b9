import AppNativeAuth
import AppNativeGateway
import AppNativeTesting
import Foundation
import Testing

/// CLOCK_SKEW_LEEWAY (Entra tokens) and CREDENTIAL_EXPIRY_GRACE: a stream closed at expiry must
/// not be reopened with the expired credential, so the grace may not be shorter than the leeway of
/// any credential that can open one: the token leeway, and with sessions the cookie's fixed 30 s.
@Suite("Clock skew leeway and expiry grace")
struct ClockSkewLeewayConfigurationTests {
    static let base = ProxyFixture.publicEnvironment([
        "UPSTREAM_URL": "http://127.0.0.1:1", "SESSION_SECRET": "0123456789abcdef0123456789abcdef-session",
    ])

    static func problems(_ extra: [String: String], base: [String: String] = base) -> [ConfigurationError.Problem] {
        do {
            _ = try GatewayConfiguration.fromEnvironment(base.merging(extra) { $1 })
            return []
        } catch {
            return error.problems
        }
    }

    @Test("defaults: 60 s leeway for tokens (the reference's), the fixed 30 s for cookies, 60 s grace")
    func defaults() throws {
        let configuration = try GatewayConfiguration.fromEnvironment(Self.base)
        #expect(configuration.identity.entra.leeway == .seconds(60))
        #expect(configuration.identity.entra.policy.leeway == .seconds(60))
        #expect(configuration.identity.session?.leeway == .seconds(30))
        #expect(configuration.identity.credentialExpiryGrace == .seconds(60))
    }

    @Test("the setting reaches the token verifier only; the cookie keeps 30 s")
    func tokensOnly() throws {
        for leeway in ["0", "45", "120"] {
            let configuration = try GatewayConfiguration.fromEnvironment(
                Self.base.merging(["CLOCK_SKEW_LEEWAY": leeway, "CREDENTIAL_EXPIRY_GRACE": "120"]) { $1 })
            #expect(configuration.identity.entra.policy.leeway == .seconds(Int64(leeway)!))
            #expect(configuration.identity.session?.leeway == .seconds(30))
        }
    }

    @Test("a grace below the token leeway is refused, naming both variables", arguments: [
        ["CREDENTIAL_EXPIRY_GRACE": "59"], ["CREDENTIAL_EXPIRY_GRACE": "30"], ["CREDENTIAL_EXPIRY_GRACE": "0"],
        ["CREDENTIAL_EXPIRY_GRACE": "59.5", "CLOCK_SKEW_LEEWAY": "60"], ["CREDENTIAL_EXPIRY_GRACE": "100", "CLOCK_SKEW_LEEWAY": "120"],
    ])
    func graceBelowTokenLeeway(_ extra: [String: String]) {
        let problems = Self.problems(extra)
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.variable == "CREDENTIAL_EXPIRY_GRACE")
        #expect(problems.first?.message.contains("CLOCK_SKEW_LEEWAY") == true)
    }

    @Test("with sessions, a grace below the cookie's 30 s is refused even when the token leeway is lower", arguments: [
        ["CREDENTIAL_EXPIRY_GRACE": "29", "CLOCK_SKEW_LEEWAY": "10"], ["CREDENTIAL_EXPIRY_GRACE": "0", "CLOCK_SKEW_LEEWAY": "0"],
    ])
    func graceBelowCookieLeeway(_ extra: [String: String]) {
        let problems = Self.problems(extra)
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.variable == "CREDENTIAL_EXPIRY_GRACE")
        #expect(problems.first?.message.contains("session cookie") == true, "\(problems)")
    }

    @Test("a grace at or above every leeway that applies is accepted", arguments: [
        ["CREDENTIAL_EXPIRY_GRACE": "60"], ["CREDENTIAL_EXPIRY_GRACE": "30", "CLOCK_SKEW_LEEWAY": "0"],
        ["CREDENTIAL_EXPIRY_GRACE": "30", "CLOCK_SKEW_LEEWAY": "30"], ["CREDENTIAL_EXPIRY_GRACE": "300", "CLOCK_SKEW_LEEWAY": "120"],
    ])
    func graceAtOrAboveLeeway(_ extra: [String: String]) {
        #expect(Self.problems(extra).isEmpty, "\(extra)")
    }

    @Test("without sessions only the token leeway binds the grace: 0 and 0 close streams exactly at exp")
    func tokenOnlyDeployment() {
        var tokenOnly = Self.base
        tokenOnly["SESSION_SECRET"] = nil
        #expect(Self.problems(["CREDENTIAL_EXPIRY_GRACE": "0", "CLOCK_SKEW_LEEWAY": "0"], base: tokenOnly).isEmpty)
        #expect(Self.problems(["CREDENTIAL_EXPIRY_GRACE": "10", "CLOCK_SKEW_LEEWAY": "10"], base: tokenOnly).isEmpty)
        #expect(Self.problems(["CREDENTIAL_EXPIRY_GRACE": "30"], base: tokenOnly).map(\.variable) == ["CREDENTIAL_EXPIRY_GRACE"])
    }

    @Test("a leeway out of range is reported once, on CLOCK_SKEW_LEEWAY", arguments: ["301", "-5", "soon"])
    func leewayOutOfRange(_ text: String) {
        let problems = Self.problems(["CLOCK_SKEW_LEEWAY": text])
        #expect(problems.map(\.variable) == ["CLOCK_SKEW_LEEWAY"], "\(problems)")
    }

    @Test("`config check` refuses the grace below the leeway with exit code 2, naming both")
    func configCheck() async throws {
        let output = try await CommandLineTests.run(["config", "check"], environment: Self.base.merging([
            "CREDENTIAL_EXPIRY_GRACE": "40", "CLOCK_SKEW_LEEWAY": "50",
        ]) { $1 })
        #expect(output.status == 2)
        #expect(output.stderr.contains("configuration: CREDENTIAL_EXPIRY_GRACE: must be at least CLOCK_SKEW_LEEWAY"), "\(output.stderr)")
    }
}
