import AppNativeDevPeers
import AppNativeHTTP
import AppNativeJSON
import AppNativeTesting
import Foundation
import Testing

/// Groups overage through Microsoft Graph, through the gateway binary, with
/// `graph_peer.py` playing Entra's token endpoint (client credentials) and Graph's
/// `getMemberGroups` as Microsoft documents them, and the echo upstream. `/echo/team` is under a
/// `groups` rule (`g-team`); `/echo` is under none.
@Suite("Groups overage through Microsoft Graph", .serialized)
struct GraphGroupsOverageTests {
    static let clientID = "9a9a9a9a-0000-4000-8000-0000000000c1"
    static let secret = "graph-client-secret-Zq8~not-for-logs"
    static var shapes: EntraTokenShapes { EntraTokenKindsTests.shapes }

    struct Fixture {
        let peer: LoopbackPeer
        let proxy: ProxyFixture
        var port: Int { proxy.port }
        var logs: String { proxy.gateway.logs }

        func stop() {
            proxy.stop()
            peer.stop()
        }

        /// Changes the peer's behaviour (`graph`, `token`, `groups`, `retry_after`, `delay`).
        func control(_ json: String) async throws {
            let port = peer.port
            let response = try await blocking {
                try RawHTTPClient.request(
                    port: port, method: "POST", "/control", headers: ["Content-Type": "application/json"], body: Array(json.utf8))
            }
            #expect(response.status == 200)
        }

        /// The peer's counters: `token`, `graph`, `graph_by_oid`, `last_scope`, `last_body`.
        func stats() async throws -> [String: Any] {
            let port = peer.port
            let response = try await blocking { try RawHTTPClient.get(port: port, "/stats") }
            return (try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
        }

        func graphCalls(_ objectID: String? = nil) async throws -> Int {
            let stats = try await stats()
            guard let objectID else { return stats["graph"] as? Int ?? -1 }
            return (stats["graph_by_oid"] as? [String: Int])?[objectID] ?? 0
        }

        func tokenCalls() async throws -> Int { try await stats()["token"] as? Int ?? -1 }
    }

    static func start(graph: Bool = true, _ extra: [String: String] = [:]) async throws -> Fixture {
        let peer = try await LoopbackPeer.start(
            ProcessRunner.python, [ProxyFixture.root + "/Tests/Peers/graph_peer.py", "--client-id", clientID, "--client-secret", secret])
        do {
            let policy = try EntraTokenKindsTests.policy(#"{"rules": [{"path": "/echo/team", "groups": ["g-team"]}]}"#)
            var environment = EntraTokenKindsTests.both.merging(["ACCESS_POLICY_FILE": policy]) { $1 }
            if graph {
                let base = "http://127.0.0.1:\(peer.port)"
                environment.merge([
                    "GROUPS_FROM_GRAPH": "true", "ENTRA_CLIENT_ID": clientID, "ENTRA_CLIENT_SECRET": secret,
                    "OIDC_DISCOVERY_URL": base + "/.well-known/openid-configuration", "GRAPH_URL": base,
                ]) { $1 }
            }
            environment.merge(extra) { $1 }
            return Fixture(peer: peer, proxy: try await ProxyFixture.start(environment))
        } catch {
            peer.stop()
            throw error
        }
    }

    /// An access token with the groups overage for the user `objectID`.
    static func overageToken(_ objectID: String) throws -> String {
        var claims = shapes.accessTokenV2()
        claims["oid"] = .string(objectID)
        return try EntraTokenKindsTests.sign(shapes.withGroupsOverage(claims))
    }

    static func user(_ number: Int) -> String { String(format: "77777777-0000-4000-8000-%012d", number) }

    static func get(_ fixture: Fixture, _ path: String, token: String? = nil, cookie: String? = nil) async throws -> RawHTTPClient.Response {
        try await EntraTokenKindsTests.get(fixture.port, path, token: token, cookie: cookie)
    }

    @Test("an overage token under a groups rule: in when Graph lists the group (its groups go upstream), 403 when not; hasgroups too")
    func decidedByGraph() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let member = Self.user(1), outsider = Self.user(2), implicit = Self.user(3), elsewhere = Self.user(4)
        try await fixture.control(
            #"{"groups": {"\#(member)": ["g-other", "g-team"], "\#(outsider)": ["g-other"], "\#(implicit)": ["g-team"], "\#(elsewhere)": ["g-team"]}}"#)
        let allowed = try await Self.get(fixture, "/echo/team", token: try Self.overageToken(member))
        #expect(allowed.status == 200, "\(allowed.bodyText) \(fixture.logs.suffix(1500))")
        #expect(try EntraTokenKindsTests.echoed(allowed, "X-AppNative-User-Groups") == "g-other,g-team")
        let stats = try await fixture.stats()
        #expect(stats["last_scope"] as? String == "https://graph.microsoft.com/.default")
        #expect((stats["last_body"] as? String)?.replacingOccurrences(of: " ", with: "") == #"{"securityEnabledOnly":false}"#)

        let refused = try await Self.get(fixture, "/echo/team", token: try Self.overageToken(outsider))
        #expect(refused.status == 403)
        #expect(refused.bodyText == #"{"detail":"Not allowed"}"#)

        // The implicit flow's `hasgroups: true` on an ID token.
        var idToken = Self.shapes.idToken()
        idToken["oid"] = .string(implicit)
        let byHasGroups = try await Self.get(fixture, "/echo/team", token: try EntraTokenKindsTests.sign(EntraTokenShapes.withHasGroups(idToken)))
        #expect(byHasGroups.status == 200, "\(byHasGroups.bodyText)")

        // A path under no groups rule never calls Graph.
        #expect(try await Self.get(fixture, "/echo", token: try Self.overageToken(elsewhere)).status == 200)
        #expect(try await fixture.graphCalls(elsewhere) == 0)
        #expect(!fixture.logs.contains(Self.secret))
        #expect(!fixture.logs.contains("graph-app-token-"))
    }

    @Test("the cookie path: a user with more than 10 groups gets a small cookie, and under the groups rule Graph decides it")
    func cookieDecidedByGraph() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let member = Self.user(10), outsider = Self.user(11)
        let many = (1...11).map { String(format: "0a1b2c3d-0000-4000-8000-%012d", $0) }
        try await fixture.control(#"{"groups": {"\#(member)": ["g-team"], "\#(outsider)": ["g-other"]}}"#)
        for (objectID, expected) in [(member, 200), (outsider, 403)] {
            var claims = Self.shapes.accessTokenV2()
            claims["oid"] = .string(objectID)
            let token = try EntraTokenKindsTests.sign(EntraTokenShapes.withGroups(claims, many + ["g-team"]))
            // The token carries g-team itself: decided from its claim, without Graph.
            #expect(try await Self.get(fixture, "/echo/team", token: token).status == 200)
            #expect(try await fixture.graphCalls(objectID) == 0)
            let cookie = try #require(EntraTokenKindsTests.cookie(of: try await Self.get(fixture, "/echo", token: token)))
            #expect(cookie.utf8.count < 1200, "the cookie grew with the groups: \(cookie.utf8.count) bytes")
            let byCookie = try await Self.get(fixture, "/echo/team", cookie: cookie)
            #expect(byCookie.status == expected, "\(objectID): \(byCookie.bodyText)")
            #expect(try await fixture.graphCalls(objectID) == 1)
            if expected == 200 {
                #expect(try EntraTokenKindsTests.echoed(byCookie, "X-AppNative-User-Groups") == "g-team")
            }
        }
    }

    @Test("one Graph call for many requests (cache) and for concurrent ones (single flight); one application token for all")
    func cacheAndSingleFlight() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let first = Self.user(20), second = Self.user(21)
        let starters = (22..<26).map(Self.user)
        try await fixture.control(
            #"{"groups": {"\#(first)": ["g-team"], "\#(second)": ["g-team"], \#(starters.map { "\"\($0)\": [\"g-team\"]" }.joined(separator: ", "))}, "token_delay": 1.0}"#)
        // Several users at once before any application token exists: one token request for all.
        let port = fixture.port
        let tokens = try starters.map(Self.overageToken)
        let firstStatuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for token in tokens {
                group.addTask { try await EntraTokenKindsTests.get(port, "/echo/team", token: token).status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(firstStatuses == Array(repeating: 200, count: starters.count))
        #expect(try await fixture.tokenCalls() == 1)

        let token = try Self.overageToken(first)
        for _ in 0..<5 {
            #expect(try await Self.get(fixture, "/echo/team", token: token).status == 200)
        }
        #expect(try await fixture.graphCalls(first) == 1)

        // Graph answers slowly: eight requests arrive while the first lookup is in flight.
        try await fixture.control(#"{"delay": 1.0}"#)
        let concurrent = try Self.overageToken(second)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask { try await EntraTokenKindsTests.get(port, "/echo/team", token: concurrent).status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 8))
        #expect(try await fixture.graphCalls(second) == 1)
        #expect(try await fixture.tokenCalls() == 1)

        let metrics = try await blocking { try RawHTTPClient.get(port: fixture.proxy.gateway.adminPort, "/metrics").bodyText }
        #expect(metrics.contains("appnative_graph_requests_total{"), "\(metrics.prefix(400))")
        #expect(metrics.contains("appnative_graph_cache_hits_total") && metrics.contains("appnative_graph_token_requests_total{"))
    }

    @Test("Graph down: 503 with Retry-After under the groups rule, other paths unaffected, and in at once when Graph is back")
    func graphDown() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let objectID = Self.user(30)
        try await fixture.control(#"{"groups": {"\#(objectID)": ["g-team"]}, "graph": "down"}"#)
        let token = try Self.overageToken(objectID)
        for mode in ["down", "denied", "malformed"] {
            try await fixture.control(#"{"graph": "\#(mode)"}"#)
            let unavailable = try await Self.get(fixture, "/echo/team", token: token)
            #expect(unavailable.status == 503, "\(mode): \(unavailable.bodyText)")
            let retryAfter = unavailable.head.headers.first("Retry-After").flatMap { Int($0) }
            #expect((retryAfter ?? 0) > 0, "\(mode)")
            #expect(try await Self.get(fixture, "/echo", token: token).status == 200)
        }
        #expect(await eventually { fixture.logs.contains("Authorization_RequestDenied") }, "\(fixture.logs.suffix(1500))")
        let calls = try await fixture.graphCalls(objectID)
        try await fixture.control(#"{"graph": "ok"}"#)
        // No failure was kept: the very next request is decided by Graph.
        #expect(try await Self.get(fixture, "/echo/team", token: token).status == 200)
        #expect(try await fixture.graphCalls(objectID) == calls + 1)
    }

    @Test("a slow Graph beyond the call timeout answers 503, not a hung request")
    func slowGraph() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let objectID = Self.user(35)
        try await fixture.control(#"{"groups": {"\#(objectID)": ["g-team"]}, "graph": "slow"}"#)
        let response = try await blocking {
            try RawHTTPClient.request(
                port: fixture.port, method: "GET", "/echo/team", headers: ["Authorization": "Bearer \(try Self.overageToken(objectID))"],
                timeout: .seconds(25))
        }
        #expect(response.status == 503)
        #expect(response.head.headers.first("Retry-After") != nil)
    }

    @Test("429 with Retry-After: 503 with that Retry-After, and no call to Graph before it passes")
    func throttled() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let objectID = Self.user(40), other = Self.user(41)
        // A window far longer than the few requests below take, so they all fall inside it.
        try await fixture.control(#"{"groups": {"\#(objectID)": ["g-team"], "\#(other)": ["g-team"]}, "graph": "throttle", "retry_after": 20}"#)
        let token = try Self.overageToken(objectID)
        let first = try await Self.get(fixture, "/echo/team", token: token)
        #expect(first.status == 503)
        let retryAfter = try #require(first.head.headers.first("Retry-After").flatMap { Int($0) })
        #expect((1...20).contains(retryAfter))
        try await fixture.control(#"{"graph": "ok"}"#)
        // Within the window: answered 503 without asking Graph, for this user and any other;
        // a path under no groups rule is unaffected.
        for (user, userToken) in [(objectID, token), (other, try Self.overageToken(other))] {
            let during = try await Self.get(fixture, "/echo/team", token: userToken)
            #expect(during.status == 503, "\(user)")
            #expect(during.head.headers.first("Retry-After").flatMap { Int($0) }.map { (1...20).contains($0) } == true)
            #expect(try await Self.get(fixture, "/echo", token: userToken).status == 200)
        }
        #expect(try await fixture.graphCalls() == 1)
        #expect(await eventually(timeout: .seconds(90), pollingEvery: .milliseconds(250)) {
            (try? await Self.get(fixture, "/echo/team", token: token).status) == 200
        })
        #expect(try await fixture.graphCalls(objectID) == 2)
    }

    @Test("the token endpoint refuses the credential: 503, a log line with the AADSTS code and no secret; in once it is fixed")
    func tokenEndpointError() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let objectID = Self.user(50)
        try await fixture.control(#"{"groups": {"\#(objectID)": ["g-team"]}, "token": "invalid_client"}"#)
        let token = try Self.overageToken(objectID)
        let refused = try await Self.get(fixture, "/echo/team", token: token)
        #expect(refused.status == 503)
        #expect(refused.head.headers.first("Retry-After") != nil)
        #expect(try await fixture.graphCalls() == 0)
        #expect(await eventually { fixture.logs.contains("AADSTS7000215") }, "\(fixture.logs.suffix(1500))")
        #expect(fixture.logs.contains("invalid_client"))
        #expect(!fixture.logs.contains(Self.secret))
        #expect(!fixture.logs.contains("Invalid client secret provided"))
        try await fixture.control(#"{"token": "ok"}"#)
        #expect(try await Self.get(fixture, "/echo/team", token: token).status == 200)
    }

    @Test("without GROUPS_FROM_GRAPH an overage under a groups rule is 403 and the log names the overage; Graph is never asked")
    func withoutGraph() async throws {
        let fixture = try await Self.start(graph: false)
        defer { fixture.stop() }
        let objectID = Self.user(60)
        try await fixture.control(#"{"groups": {"\#(objectID)": ["g-team"]}}"#)
        let refused = try await Self.get(fixture, "/echo/team", token: try Self.overageToken(objectID))
        #expect(refused.status == 403)
        #expect(await eventually { fixture.logs.contains("groups_overage") }, "\(fixture.logs.suffix(1500))")
        #expect(try await fixture.graphCalls() == 0)
        #expect(try await fixture.tokenCalls() == 0)
    }

    @Test("config check: GROUPS_FROM_GRAPH needs ENTRA_CLIENT_ID and a credential; GRAPH_URL https (http on loopback); GROUPS_CACHE_SECONDS range")
    func configurationIsChecked() async throws {
        let base = [
            "UPSTREAM_URL": "http://127.0.0.1:1", "ENTRA_TENANT_ID": DevIdentityProvider.tenantID, "ENTRA_AUDIENCE": "x",
            "GROUPS_FROM_GRAPH": "true",
        ]
        func check(_ environment: [String: String]) async throws -> ProcessRunner.Output {
            try await ProcessRunner.run(GatewayExecutable.path, ["config", "check"], environment: base.merging(environment) { $1 })
        }
        let missingClient = try await check(["ENTRA_CLIENT_SECRET": "s"])
        #expect(missingClient.status == 2)
        #expect(missingClient.stderr.contains("ENTRA_CLIENT_ID"), "\(missingClient.stderr)")
        let missingCredential = try await check(["ENTRA_CLIENT_ID": "web"])
        #expect(missingCredential.status == 2)
        #expect(missingCredential.stderr.contains("ENTRA_CLIENT_SECRET") && missingCredential.stderr.contains("GROUPS_FROM_GRAPH"))
        let good = ["ENTRA_CLIENT_ID": "web", "ENTRA_CLIENT_SECRET": "s"]
        #expect(try await check(good).status == 0)
        let cleartext = try await check(good.merging(["GRAPH_URL": "http://graph.example.com"]) { $1 })
        #expect(cleartext.status == 2)
        #expect(cleartext.stderr.contains("GRAPH_URL"))
        #expect(try await check(good.merging(["GRAPH_URL": "http://127.0.0.1:9"]) { $1 }).status == 0)
        #expect(try await check(good.merging(["GRAPH_URL": "https://graph.microsoft.us"]) { $1 }).status == 0)
        for value in ["-1", "86401", "soon"] {
            let cache = try await check(good.merging(["GROUPS_CACHE_SECONDS": value]) { $1 })
            #expect(cache.status == 2, "\(value)")
            #expect(cache.stderr.contains("GROUPS_CACHE_SECONDS"))
        }
    }

    @Test("token verify explains an overage with and without GROUPS_FROM_GRAPH")
    func tokenVerifyExplains() async throws {
        let claims = Self.shapes.withGroupsOverage(Self.shapes.accessTokenV2())
        let without = try await EntraTokenKindsCommandLineTests.verdict(claims, EntraTokenKindsCommandLineTests.both)
        #expect(without["explanation"]?.stringValue?.contains("403, groups_overage") == true)
        let with = try await EntraTokenKindsCommandLineTests.verdict(
            claims, EntraTokenKindsCommandLineTests.both.merging(["GROUPS_FROM_GRAPH": "true"]) { $1 })
        #expect(with["explanation"]?.stringValue?.contains("Microsoft Graph") == true)
        #expect(with["explanation"]?.stringValue?.contains("503") == true)
    }
}
