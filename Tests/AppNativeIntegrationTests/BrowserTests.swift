import AppNativeTesting
import Foundation
import Testing

/// The gateway in a real browser: `Tests/Peers/browser_suite.py` drives headless Chromium
/// (Debian's `chromium`, installed by scripts/install-deps.sh) with Playwright (PyPI, installed by
/// scripts/install-python-tools.sh) against the gateway binary under test, once per scheme. The
/// script starts and stops everything itself and prints one line per case.
@Suite("Browser (headless Chromium)", .serialized, .timeLimit(.minutes(15)))
struct BrowserTests {
    static func run(scheme: String) async throws {
        let root = ProcessRunner.repositoryRoot()
        let python = root + "/.build/python-tools/bin/python"
        try #require(FileManager.default.isExecutableFile(atPath: python), "run scripts/install-python-tools.sh (make test does)")
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "run scripts/install-deps.sh (make test does)")
        let result = try await ProcessRunner.run(
            python,
            [root + "/Tests/Peers/browser_suite.py", "--gateway", GatewayExecutable.path, "--only", scheme, "--timeout", "720"]
        )
        let summary = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(
            result.status == 0 && summary.hasSuffix(" 0 failed"),
            "browser suite (\(scheme)) exited \(result.status):\n\(result.stdout.suffix(8000))\n\(result.stderr.suffix(3000))"
        )
    }

    @Test("over plain HTTP: WebView sign-in, cookie, Origin refusals, logout, errors, expiry")
    func plainHTTP() async throws {
        try await Self.run(scheme: "http")
    }

    @Test("over TLS: WebView sign-in, cookie, Origin refusals, logout, errors, expiry")
    func tls() async throws {
        try await Self.run(scheme: "tls")
    }

    /// `Tests/Peers/browser_signin_suite.py`, once per OpenID provider.
    static func runSignIn(provider: String) async throws {
        let root = ProcessRunner.repositoryRoot()
        let python = root + "/.build/python-tools/bin/python"
        try #require(FileManager.default.isExecutableFile(atPath: python), "run scripts/install-python-tools.sh (make test does)")
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "run scripts/install-deps.sh (make test does)")
        let result = try await ProcessRunner.run(
            python,
            [root + "/Tests/Peers/browser_signin_suite.py", "--gateway", GatewayExecutable.path, "--only", provider, "--timeout", "600"]
        )
        let summary = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(
            result.status == 0 && summary.hasSuffix(" 0 failed") && !summary.hasPrefix("0 passed"),
            "browser sign-in suite (\(provider)) exited \(result.status):\n\(result.stdout.suffix(8000))\n\(result.stderr.suffix(3000))"
        )
    }

    @Test("browser sign-in through the dev identity provider: round trip, 401 for fetch, redirects, replay, tenant, sign-out, two tabs")
    func signInDevProvider() async throws {
        try await Self.runSignIn(provider: "dev")
    }

    @Test("browser sign-in through oidc-provider-mock (PyPI): the same cases against a provider nobody here wrote")
    func signInOIDCProviderMock() async throws {
        try await Self.runSignIn(provider: "mock")
    }
}
