import AppNativeTesting
import Foundation
import Testing

/// HTTP/2 in a real browser: `Tests/Peers/browser_http2_suite.py` drives headless Chromium with
/// Playwright against the gateway binary over TLS (ALPN `h2`), with a gateway whose HTTP/2 is off
/// as the HTTP/1.1 control.
@Suite("Browser over HTTP/2 (headless Chromium)", .serialized, .timeLimit(.minutes(10)))
struct BrowserHTTP2Tests {
    /// The script's output for one case; fails the test unless the case passed.
    static func run(_ selection: String) async throws -> String {
        let root = ProcessRunner.repositoryRoot()
        let python = root + "/.build/python-tools/bin/python"
        try #require(FileManager.default.isExecutableFile(atPath: python), "run scripts/install-python-tools.sh (make test does)")
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "run scripts/install-deps.sh (make test does)")
        let result = try await ProcessRunner.run(
            python,
            [root + "/Tests/Peers/browser_http2_suite.py", "--gateway", GatewayExecutable.path, "--only", selection, "--timeout", "480"]
        )
        let summary = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(
            result.status == 0 && summary == "1 passed, 0 failed",
            "browser_http2_suite.py (\(selection)) exited \(result.status):\n\(result.stdout.suffix(6000))\n\(result.stderr.suffix(3000))"
        )
        return result.stdout
    }

    @Test("a page, a fetch, ten EventSources on protected paths at once and a fetch beside them, all over h2 (nextHopProtocol)")
    func tenEventSources() async throws {
        _ = try await Self.run("h2")
    }

    @Test("the control over HTTP/1.1 (HTTP2=false): six event streams take Chromium's six connections and the fetch waits")
    func http1Control() async throws {
        _ = try await Self.run("http1")
    }

    @Test("a WebSocket from Chromium over h2 (RFC 8441 extended CONNECT, SETTINGS_ENABLE_CONNECT_PROTOCOL advertised)")
    func webSocketOverHTTP2() async throws {
        _ = try await Self.run("websocket")
    }
}
