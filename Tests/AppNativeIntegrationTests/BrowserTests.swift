import AppNativeTesting
import Foundation
import Testing

/// The gateway in a real browser: `Tests/Peers/browser_suite.py` drives headless Chromium
/// (Debian's `chromium`, installed by scripts/install-deps.sh) with Playwright (PyPI, installed by
/// scripts/install-python-tools.sh) against the gateway binary under test, once per scheme. The
/// script starts and stops everything itself and prints one line per case.
@Suite("Browser (headless Chromium)", .serialized, .timeLimit(.minutes(15)))
struct BrowserTests {
    /// Runs one of the browser scripts with `--only selection`; it passes when the script ran at
    /// least one case and every case passed.
    static func runScript(_ script: String, only selection: String, timeoutSeconds: Int) async throws {
        let root = ProcessRunner.repositoryRoot()
        let python = root + "/.build/python-tools/bin/python"
        try #require(FileManager.default.isExecutableFile(atPath: python), "run scripts/install-python-tools.sh (make test does)")
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "run scripts/install-deps.sh (make test does)")
        let result = try await ProcessRunner.run(
            python,
            [root + "/Tests/Peers/" + script, "--gateway", GatewayExecutable.path, "--only", selection, "--timeout", String(timeoutSeconds)]
        )
        let summary = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(
            result.status == 0 && summary.hasSuffix(" 0 failed") && !summary.hasPrefix("0 passed"),
            "\(script) (\(selection)) exited \(result.status):\n\(result.stdout.suffix(8000))\n\(result.stderr.suffix(3000))"
        )
    }

    static func run(scheme: String) async throws {
        try await runScript("browser_suite.py", only: scheme, timeoutSeconds: 720)
    }

    @Test("over plain HTTP: WebView sign-in, cookie, Origin refusals, logout, errors, expiry")
    func plainHTTP() async throws {
        try await Self.run(scheme: "http")
    }

    @Test("over TLS: WebView sign-in, cookie, Origin refusals, logout, errors, expiry")
    func tls() async throws {
        try await Self.run(scheme: "tls")
    }

    /// `Tests/Peers/browser_signin_suite.py`, once per OpenID provider, and once over https.
    static func runSignIn(provider: String) async throws {
        try await runScript("browser_signin_suite.py", only: provider, timeoutSeconds: 600)
    }

    @Test("browser sign-in through the dev identity provider: round trip, 401 for fetch, redirects, replay, tenant, sign-out, two tabs")
    func signInDevProvider() async throws {
        try await Self.runSignIn(provider: "dev")
    }

    @Test("browser sign-in through oidc-provider-mock (PyPI): the same cases against a provider nobody here wrote")
    func signInOIDCProviderMock() async throws {
        try await Self.runSignIn(provider: "mock")
    }

    @Test("browser sign-in over https: __Host- attempt and session cookies kept by Chromium, a planted bare-named attempt cookie refused, the same cases")
    func signInOverHTTPS() async throws {
        try await Self.runSignIn(provider: "https")
    }
}
