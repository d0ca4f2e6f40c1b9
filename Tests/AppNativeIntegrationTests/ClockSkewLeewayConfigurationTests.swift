import AppNativeAuth
import AppNativeGateway
import AppNativeTesting
import Foundation
import Testing

/// CLOCK_SKEW_LEEWAY and CREDENTIAL_EXPIRY_GRACE: a stream closed at expiry must not be
/// reopened with the expired credential, so the grace may not be shorter than the leeway.
@Suite("Clock skew leeway and expiry grace")
struct ClockSkewLeewayConfigurationTests {
    static let base = ProxyFixture.publicEnvironment([
        "UPSTREAM_URL": "http://127.0.0.1:1", "SESSION_SECRET": "0123456789abcdef0123456789abcdef-session",
    ])

    static func problems(_ extra: [String: String]) -> [ConfigurationError.Problem] {
        do {
            _ = try GatewayConfiguration.fromEnvironment(base.merging(extra) { $1 })
            return []
        } catch {
            return error.problems
        }
    }

    @Test("defaults: 30 s leeway for tokens and cookies, 30 s grace")
    func defaults() throws {
        let configuration = try GatewayConfiguration.fromEnvironment(Self.base)
        #expect(configuration.identity.entra.leeway == .seconds(30))
        #expect(configuration.identity.session?.leeway == .seconds(30))
        #expect(configuration.identity.credentialExpiryGrace == .seconds(30))
    }

    @Test("one leeway: the setting reaches the token verifier and the cookie")
    func oneSetting() throws {
        let configuration = try GatewayConfiguration.fromEnvironment(
            Self.base.merging(["CLOCK_SKEW_LEEWAY": "45", "CREDENTIAL_EXPIRY_GRACE": "45"]) { $1 })
        #expect(configuration.identity.entra.policy.leeway == .seconds(45))
        #expect(configuration.identity.session?.leeway == .seconds(45))
    }

    @Test("a grace below the leeway is refused, naming both variables", arguments: [
        ["CREDENTIAL_EXPIRY_GRACE": "29"], ["CREDENTIAL_EXPIRY_GRACE": "0"],
        ["CREDENTIAL_EXPIRY_GRACE": "59.5", "CLOCK_SKEW_LEEWAY": "60"],
    ])
    func graceBelowLeeway(_ extra: [String: String]) {
        let problems = Self.problems(extra)
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.variable == "CREDENTIAL_EXPIRY_GRACE")
        #expect(problems.first?.message.contains("CLOCK_SKEW_LEEWAY") == true)
    }

    @Test("a grace at or above the leeway is accepted", arguments: [
        ["CREDENTIAL_EXPIRY_GRACE": "30"], ["CREDENTIAL_EXPIRY_GRACE": "0", "CLOCK_SKEW_LEEWAY": "0"],
        ["CREDENTIAL_EXPIRY_GRACE": "10", "CLOCK_SKEW_LEEWAY": "10"], ["CREDENTIAL_EXPIRY_GRACE": "300", "CLOCK_SKEW_LEEWAY": "120"],
    ])
    func graceAtOrAboveLeeway(_ extra: [String: String]) {
        #expect(Self.problems(extra).isEmpty, "\(extra)")
    }

    @Test("a leeway out of range is reported once, on CLOCK_SKEW_LEEWAY", arguments: ["301", "-5", "soon"])
    func leewayOutOfRange(_ text: String) {
        let problems = Self.problems(["CLOCK_SKEW_LEEWAY": text])
        #expect(problems.map(\.variable) == ["CLOCK_SKEW_LEEWAY"], "\(problems)")
    }

    @Test("`config check` refuses the grace below the leeway with exit code 2, naming both")
    func configCheck() async throws {
        let output = try await CommandLineTests.run(["config", "check"], environment: Self.base.merging([
            "CREDENTIAL_EXPIRY_GRACE": "10", "CLOCK_SKEW_LEEWAY": "30",
        ]) { $1 })
        #expect(output.status == 2)
        #expect(output.stderr.contains("configuration: CREDENTIAL_EXPIRY_GRACE: must be at least CLOCK_SKEW_LEEWAY"), "\(output.stderr)")
    }
}
