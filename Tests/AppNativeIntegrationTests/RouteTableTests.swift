@testable import AppNativeGateway
import AppNativeProxy
import Testing

/// `ROUTES_FILE` as values: the choice of a route and the checks of the file, without a socket.
@Suite("Routes: the table and the file")
struct RouteTableTests {
    static func routes(_ json: String) -> Result<[RouteDefinition], RoutesFile.Invalid> {
        RoutesFile.parse(Array(json.utf8), source: "routes.json")
    }

    static let three = #"""
        {"routes": [
          {"name": "web", "upstream": "http://web:8000"},
          {"name": "billing", "path": "/billing/", "upstream": ["http://billing-a:8000", "http://billing-b:8000"], "strip_path": true},
          {"name": "reports", "host": "Reports.Example.com", "upstream": "https://reports.internal/api", "host_header": "upstream",
           "public_paths": ["/health"], "policy": {"rules": [{"path": "/admin", "roles": ["Admin"]}]},
           "connect_timeout": 2, "response_timeout": 120, "native_routes": false, "identity_headers": "easyauth"},
          {"name": "reports-billing", "host": "reports.example.com", "path": "/billing", "upstream": "http://rb:8000"}
        ]}
        """#

    @Test("host routes first, then the longest path; no route, nil")
    func choice() throws {
        let table = RouteTable(try Self.routes(Self.three).get())
        func name(_ host: String?, _ path: String) -> String? { table.route(host: host, path: path).map { table.routes[$0].name } }
        #expect(name("app.example.com", "/") == "web")
        #expect(name("app.example.com", "/billing") == "billing")
        #expect(name("app.example.com", "/billing/x") == "billing")
        #expect(name("app.example.com", "/billingx") == "web")
        #expect(name("REPORTS.example.com:8443", "/x") == "reports")
        #expect(name("reports.example.com", "/billing/y") == "reports-billing")
        #expect(name(nil, "/billing") == "billing")
        let onlyBilling = RouteTable(try Self.routes(#"{"routes":[{"path":"/billing","upstream":"http://b"}]}"#).get())
        #expect(onlyBilling.route(host: "a", path: "/other") == nil)
    }

    @Test("strip_path: the prefix goes, the query stays, at least /")
    func strip() throws {
        let table = RouteTable(try Self.routes(Self.three).get())
        let billing = try #require(table.route(host: nil, path: "/billing/x"))
        #expect(table.upstreamTarget("/billing/x/y?q=1", route: billing) == "/x/y?q=1")
        #expect(table.upstreamTarget("/billing", route: billing) == "/")
        #expect(table.upstreamTarget("/billing?q=1", route: billing) == "/?q=1")
        #expect(table.upstreamTarget("/billing/", route: billing) == "/")
        let web = try #require(table.route(host: nil, path: "/x"))
        #expect(table.upstreamTarget("/x?y", route: web) == "/x?y")
    }

    @Test("every member is read")
    func members() throws {
        let routes = try Self.routes(Self.three).get()
        let reports = routes[2]
        #expect(reports.host == "reports.example.com")
        #expect(reports.upstreams == ["https://reports.internal/api"])
        #expect(reports.hostHeader == .upstream)
        #expect(reports.publicPaths.map(\.description) == ["/health"])
        #expect(reports.policy?.rules.first?.roles == ["Admin"])
        #expect(reports.connectTimeout == .seconds(2) && reports.responseTimeout == .seconds(120))
        #expect(reports.servesNativeRoutes == false && reports.identityProfile != nil)
        #expect(routes[1].upstreams.count == 2 && routes[1].stripsPath)
    }

    @Test("every problem names the route and the member, all in one pass")
    func problems() {
        let bad = #"""
            {"routes": [
              {"name": "a", "upstream": "ftp://x", "strip_paths": true, "host": "a b", "path": "relative"},
              {"upstream": [], "host_header": "proxy", "connect_timeout": -1, "policy": {"rules": [{"path": "x"}]}},
              {"name": "a", "upstream": "http://u@h"},
              {"path": "/p", "upstream": "http://one"},
              {"path": "/p/", "upstream": "http://two"}
            ], "extra": 1}
            """#
        guard case .failure(let invalid) = Self.routes(bad) else {
            Issue.record("accepted")
            return
        }
        let text = invalid.problems.map(\.description)
        for expected in [
            "routes[0] \"a\".upstream", "routes[0] \"a\": unknown member \"strip_paths\"", "routes[0] \"a\".host", "routes[0] \"a\".path",
            "routes[1].upstream", "routes[1].host_header", "routes[1].connect_timeout", "routes[1].policy", "routes[2] \"a\".upstream",
            "routes[2] \"a\": name \"a\" is used", "routes \"routes[4]\": same host and path as \"routes[3]\"", "routes.json: unknown member \"extra\"",
        ] {
            #expect(text.contains { $0.hasPrefix(expected) }, "missing \(expected) in \(text)")
        }
        #expect(Self.routes("{").isFailure && Self.routes(#"{"routes": []}"#).isFailure && Self.routes("[]").isFailure)
    }

    static func set(_ json: String, catchAll: String? = nil, reusing previous: RouteSet? = nil) throws -> Result<RouteSet, RoutesFile.Invalid> {
        let settings = UpstreamSettings()
        return RouteSet.build(try Self.routes(json).get(), catchAll: try catchAll.map { try settings.configuration(url: $0) }, settings: settings,
                              reusing: previous)
    }

    @Test("the set: UPSTREAM_URL is the catch-all route, after the file's; it may not collide with one of them")
    func catchAll() throws {
        let set = try Self.set(#"{"routes": [{"name": "b", "path": "/b", "upstream": "http://b:1"}]}"#, catchAll: "http://web:2").get()
        #expect(set.table.routes.map(\.name) == ["b", RouteSet.catchAllName])
        #expect(set.table.route(host: "x", path: "/other").map { set.table.routes[$0].name } == RouteSet.catchAllName)
        for clash in [#"{"routes": [{"name": "root", "upstream": "http://r:1"}]}"#, #"{"routes": [{"name": "default", "path": "/d", "upstream": "http://r:1"}]}"#] {
            #expect(try Self.set(clash, catchAll: "http://web:2").isFailure, "\(clash)")
            #expect(try !Self.set(clash).isFailure, "\(clash) without UPSTREAM_URL")
        }
    }

    @Test("the set: a reload keeps a URL's configuration when its options are the same, and one host's addresses are shared")
    func reuse() throws {
        let first = try Self.set(#"{"routes": [{"name": "a", "upstream": ["http://a:1", "http://a:1/x"]}, {"name": "b", "path": "/b", "upstream": "http://b:1"}]}"#).get()
        let a = first.upstreams[0].map { ObjectIdentifier($0.configuration.addresses) }
        #expect(a[0] == a[1], "two URLs on one host and port share their addresses")
        let second = try Self.set(
            #"{"routes": [{"name": "a", "upstream": "http://a:1"}, {"name": "b", "path": "/b", "upstream": "http://b:1", "connect_timeout": 1}]}"#,
            reusing: first
        ).get()
        #expect(ObjectIdentifier(second.upstreams[0][0].configuration.addresses) == a[0], "the same URL and options: kept")
        #expect(second.upstreams[1][0].key != first.upstreams[1][0].key, "other options: another configuration")
        #expect(second.upstreams[1][0].configuration.connectTimeout == .seconds(1))
        #expect(ObjectIdentifier(second.upstreams[1][0].configuration.addresses) == ObjectIdentifier(first.upstreams[1][0].configuration.addresses),
                "the same host keeps its addresses whatever the options")
        #expect(second.addresses.count == 2)
    }

    @Test("the set: a URL that cannot be made ready names its route and member")
    func unusableURL() throws {
        guard case .failure(let invalid) = try Self.set(#"{"routes": [{"name": "v6", "upstream": "http://[::1:80"}]}"#) else {
            Issue.record("accepted")
            return
        }
        #expect(invalid.problems.map(\.location) == ["routes[0] \"v6\".upstream"], "\(invalid.problems)")
    }
}

extension Result {
    var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}
