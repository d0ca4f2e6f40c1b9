import AppNativeGateway
import Testing

/// The upstream URL's path is written in front of every request target; a byte a request line
/// cannot hold must be refused at start-up, naming the variable, not stop the process on the
/// first request.
@Suite("Upstream URL paths")
struct UpstreamURLConfigurationTests {
    static let unusable = ["/a b", "/a\tb", "/caf\u{E9}", "/a\u{7F}", "/p?x=1", "/p#f", "/\u{0}"]

    @Test("UPSTREAM_URL with a path a request target cannot hold is a configuration error", arguments: unusable)
    func upstreamURL(path: String) {
        let environment = ProxyFixture.publicEnvironment(["UPSTREAM_URL": "http://127.0.0.1:1" + path])
        #expect(problems(environment).contains("UPSTREAM_URL"), "\(path.debugDescription)")
    }

    @Test("a native route's URL with such a path is an error naming its variable", arguments: unusable)
    func routeURL(path: String) {
        let environment = ProxyFixture.publicEnvironment([
            "UPSTREAM_URL": "http://127.0.0.1:1", "NATIVE_UPSTREAM_DEVICES_URL": "http://127.0.0.1:2" + path,
        ])
        #expect(problems(environment) == ["NATIVE_UPSTREAM_DEVICES_URL"], "\(path.debugDescription)")
    }

    @Test("percent-encoded and plain paths are accepted")
    func usablePaths() {
        for path in ["", "/", "/api", "/api%20v1/", "/a-b_c.d~e!$&'()*+,;=:@/"] {
            let environment = ProxyFixture.publicEnvironment(["UPSTREAM_URL": "http://127.0.0.1:1" + path])
            #expect(problems(environment).isEmpty, "\(path.debugDescription)")
        }
    }

    private func problems(_ environment: [String: String]) -> [String] {
        do {
            _ = try GatewayConfiguration.fromEnvironment(environment)
            return []
        } catch {
            return error.problems.map(\.variable)
        }
    }
}
