import AppNativeDevPeers
import AppNativeTesting
import Foundation
import Glibc
import Testing

/// `ROUTES_FILE` through the binary: one gateway in front of backends on 127.0.0.2 and
/// 127.0.0.3 (real peers, each answering which address served and what it received), routed by
/// host and path, each route with its own rules; reloaded on SIGHUP.
@Suite("Routes", .serialized)
struct RoutesTests {
    static let first = "127.0.0.2"
    static let second = "127.0.0.3"

    /// The key server, two backends and, once started, a gateway reading `file`.
    final class Fixture: @unchecked Sendable {
        // @unchecked: `peers` and `gateway` are replaced from the test's own task only.
        let file: URL
        let jwks: LoopbackPeer
        var peers: [String: LoopbackPeer]
        var gateway: GatewayProcess!

        init() async throws {
            file = FileManager.default.temporaryDirectory.appendingPathComponent("routes-\(UUID().uuidString).json")
            let jwksFile = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json")
            try ProxyFixture.devProvider().jwksDocument.write(to: jwksFile, atomically: true, encoding: .utf8)
            jwks = try await LoopbackPeer.start(ProcessRunner.python, [ProxyFixture.root + "/Tests/Peers/jwks_server.py", "--document", jwksFile.path])
            peers = [
                RoutesTests.first: try await Self.startPeer(RoutesTests.first, port: 0),
                RoutesTests.second: try await Self.startPeer(RoutesTests.second, port: 0),
            ]
        }

        static func startPeer(_ host: String, port: Int) async throws -> LoopbackPeer {
            try await LoopbackPeer.start(
                ProcessRunner.python, [ProxyFixture.root + "/Tests/Peers/address_peer.py", "--host", host, "--port", String(port)])
        }

        func url(_ host: String) -> String { "http://\(host):\(peers[host]!.port)" }

        /// The file with `{A}` and `{B}` replaced by the two backends' URLs.
        func write(_ template: String) throws {
            let text = template.replacingOccurrences(of: "{A}", with: url(RoutesTests.first))
                .replacingOccurrences(of: "{B}", with: url(RoutesTests.second))
            try text.write(to: file, atomically: true, encoding: .utf8)
        }

        var environment: [String: String] {
            [
                "ROUTES_FILE": file.path, "EVENT_LOOPS": "2", "UPSTREAM_EJECT_SECONDS": "30",
                "ENTRA_TENANT_ID": DevIdentityProvider.tenantID, "ENTRA_AUDIENCE": DevIdentityProvider.audience,
                "ENTRA_JWKS_URL": "http://127.0.0.1:\(jwks.port)/keys",
            ]
        }

        func startGateway(_ extra: [String: String] = [:]) async throws {
            gateway = try await GatewayProcess.start(environment: environment.merging(extra) { $1 })
        }

        struct Answer: Sendable {
            let status: Int
            let json: [String: String]
            let headers: [String: String]
            let body: String
        }

        /// One request through the gateway on a fresh connection, with `host` as `Host`.
        func request(_ target: String, method: String = "GET", host: String? = nil, token: String? = nil) async throws -> Answer {
            let port = gateway.port
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                var text = "\(method) \(target) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nConnection: close\r\n"
                if let token { text += "Authorization: Bearer \(token)\r\n" }
                try client.send(text + "\r\n")
                return try client.readResponse()
            }
            let object = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
            var json = [String: String]()
            for (key, value) in object { if let text = value as? String { json[key] = text } }
            let headers = (object["headers"] as? [String: String]) ?? [:]
            return Answer(status: response.status, json: json, headers: headers, body: response.bodyText)
        }

        func metrics() async throws -> String {
            let adminPort = gateway.adminPort
            return try await blocking { try RawHTTPClient.get(port: adminPort, "/metrics").bodyText }
        }

        func reloads(_ outcome: String) async -> Int {
            let prefix = "appnative_config_reloads_total{file=\"ROUTES_FILE\",outcome=\"\(outcome)\"} "
            let text = (try? await metrics()) ?? ""
            return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) } ?? 0
        }

        func stop() {
            gateway?.stop()
            for peer in peers.values { peer.stop() }
            jwks.stop()
            try? FileManager.default.removeItem(at: file)
        }
    }

    static func token(roles: [String] = []) throws -> String {
        var user = DevIdentityProvider.User()
        user.roles = roles
        return try ProxyFixture.devProvider().token(for: user, issuedAt: Date().timeIntervalSince1970)
    }

    /// Three backends' worth of routes on two peers: a path route that strips its prefix, with
    /// its own public paths and policy; a host route addressed by its own name, with Easy Auth's
    /// headers and no native routes; a route over both peers in turn; and the app's own host.
    static let three = #"""
        {"routes": [
          {"name": "billing", "path": "/billing", "upstream": "{A}", "strip_path": true,
           "public_paths": ["/billing/open"],
           "policy": {"rules": [{"path": "/billing/admin", "roles": ["Admin"]}]}},
          {"name": "reports", "host": "Reports.Test", "upstream": "{B}", "host_header": "upstream",
           "identity_headers": "easyauth", "native_routes": false},
          {"name": "both", "path": "/both", "upstream": ["{A}", "{B}"]},
          {"name": "app", "host": "app.test", "upstream": "{A}"}
        ]}
        """#

    @Test("host routes before path routes, the longest path, segment boundaries, strip_path; no route is 404 JSON")
    func choice() async throws {
        let fixture = try await Fixture()
        defer { fixture.stop() }
        try fixture.write(Self.three)
        try await fixture.startGateway(["ACCESS_LOG": "true"])
        let token = try Self.token()

        let billing = try await fixture.request("/billing/x/y?q=1", token: token)
        #expect(billing.status == 200)
        #expect(billing.json["served_by"] == Self.first && billing.json["path"] == "/x/y?q=1", "\(billing.json)")
        #expect(try await fixture.request("/billing", token: token).json["path"] == "/")

        // The host route wins over the path route; its backend gets its own name as Host.
        let reports = try await fixture.request("/billing/x", host: "reports.test:8443", token: token)
        #expect(reports.json["served_by"] == Self.second, "\(reports.json)")
        #expect(reports.json["host"] == "\(Self.second):\(fixture.peers[Self.second]!.port)")
        #expect(reports.json["x_forwarded_host"] == "reports.test:8443")
        #expect(reports.json["path"] == "/billing/x", "a route without strip_path passes the path as it is")

        for missing in ["/billingx", "/other", "/"] {
            let answer = try await fixture.request(missing, token: token)
            #expect(answer.status == 404, "\(missing): \(answer.status)")
            #expect(answer.body.contains("\"detail\""), "\(missing): \(answer.body)")
        }
        // `/billing;x` is not below `/billing`: no route takes it, and no backend sees it.
        #expect(try await fixture.request("/billing;x/y", token: token).status == 404)
        // The gateway's own endpoints are served whatever the routes.
        #expect(try await fixture.request("/.auth/jwks.json").status == 200)
        // The first access line is the first request's, and names its route.
        var line = ""
        while !line.contains("\"type\":\"access\"") {
            guard let next = try await blocking({ fixture.gateway.nextOutputLine() }) else { break }
            line = next
        }
        #expect(line.contains("\"route\":\"billing\""), "the access log names the route: \(line)")
    }

    @Test("a route's public paths, policy, identity header profile and native routes")
    func perRouteRules() async throws {
        let fixture = try await Fixture()
        defer { fixture.stop() }
        try fixture.write(Self.three)
        try await fixture.startGateway()
        let token = try Self.token()

        #expect(try await fixture.request("/billing/open/x").status == 200, "the route's public path needs no credential")
        #expect(try await fixture.request("/billing/x").status == 401)
        #expect(try await fixture.request("/both/open/x").status == 401, "another route's public path is not public here")

        #expect(try await fixture.request("/billing/admin/x", token: token).status == 403, "the route's policy applies")
        #expect(try await fixture.request("/billing/admin/x", token: try Self.token(roles: ["Admin"])).status == 200)

        let gatewayHeaders = try await fixture.request("/billing/x", token: token).headers
        #expect(gatewayHeaders["x-appnative-user-id"] != nil && gatewayHeaders["x-ms-client-principal"] == nil, "\(gatewayHeaders)")
        let easyAuth = try await fixture.request("/x", host: "reports.test", token: token).headers
        #expect(easyAuth["x-ms-client-principal"] != nil && easyAuth["x-appnative-user-id"] == nil, "\(easyAuth)")

        // The native routes: served by the gateway on the app's host (GET on a POST route is 405),
        // proxied as any path on a route that turns them off.
        #expect(try await fixture.request("/api/devices", host: "app.test", token: token).status == 405)
        let proxied = try await fixture.request("/api/devices", host: "reports.test", token: token)
        #expect(proxied.status == 200 && proxied.json["path"] == "/api/devices", "\(proxied.status) \(proxied.json)")
    }

    @Test("forward-auth verify judges the original request by its route's rules")
    func forwardAuth() async throws {
        let fixture = try await Fixture()
        defer { fixture.stop() }
        try fixture.write(Self.three)
        try await fixture.startGateway()
        let port = fixture.gateway.port
        let token = try Self.token()
        func verify(_ uri: String, host: String = "127.0.0.1", token: String? = nil) async throws -> Int {
            try await blocking {
                let client = try RawHTTPClient(port: port)
                var text = "GET /.auth/verify HTTP/1.1\r\nHost: \(host)\r\nX-Original-URI: \(uri)\r\nX-Original-Method: GET\r\n"
                if let token { text += "Authorization: Bearer \(token)\r\n" }
                try client.send(text + "Connection: close\r\n\r\n")
                return try client.readResponse().status
            }
        }
        #expect(try await verify("/billing/open/x") == 200, "the route's public path")
        #expect(try await verify("/billing/x") == 401)
        #expect(try await verify("/billing/admin/x", token: token) == 403, "the route's policy")
        #expect(try await verify("/billing/admin/x", token: try Self.token(roles: ["Admin"])) == 200)
        #expect(try await verify("/nowhere", token: token) == 404, "no route")
        #expect(try await verify("/x", host: "reports.test", token: token) == 200, "the host route")
    }

    @Test("a route's URLs are used in turn; a killed backend is passed over with no failed request, and used again once back")
    func urlsInTurn() async throws {
        let fixture = try await Fixture()
        defer { fixture.stop() }
        try fixture.write(Self.three)
        try await fixture.startGateway(["PUBLIC_PATHS": "/both"])
        // On one connection (one loop, whose turn it is): the two backends alternate.
        let gatewayPort = fixture.gateway.port
        let order = try await blocking {
            let client = try RawHTTPClient(port: gatewayPort)
            return try (0..<6).map { _ -> String in
                try client.send("GET /both/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                let body = try client.readResponse().body
                let object = (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]) ?? [:]
                return object["served_by"] as? String ?? "none"
            }
        }
        #expect(Set(order) == [Self.first, Self.second] && zip(order, order.dropFirst()).allSatisfy { $0 != $1 }, "\(order)")

        let port = fixture.peers[Self.first]!.port
        fixture.peers[Self.first]!.stop()
        let port2 = fixture.gateway.port
        let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<2 {
                group.addTask {
                    try await blocking {
                        try (0..<100).map { _ in try RawHTTPClient.get(port: port2, "/both/x").status }
                    }
                }
            }
            var all = [Int]()
            for try await part in group { all += part }
            return all
        }
        #expect(statuses.allSatisfy { $0 == 200 }, "requests failed while a backend was down: \(statuses.filter { $0 != 200 })")

        fixture.peers[Self.first] = try await Fixture.startPeer(Self.first, port: port)
        // Ejected for UPSTREAM_EJECT_SECONDS; once the ejection ends the first backend is used again.
        let back = await eventually(timeout: .seconds(90), pollingEvery: .milliseconds(200)) {
            (try? await fixture.request("/both/x").json["served_by"]) == Self.first
        }
        #expect(back, "the restarted backend was never used again")
    }

    @Test("SIGHUP swaps the routes; an invalid file keeps them, logged and counted")
    func reload() async throws {
        let fixture = try await Fixture()
        defer { fixture.stop() }
        try fixture.write(#"{"routes": [{"name": "web", "upstream": "{A}"}]}"#)
        try await fixture.startGateway(["PUBLIC_PATHS": "/"])
        #expect(try await fixture.request("/x").json["served_by"] == Self.first)

        try fixture.write(#"{"routes": [{"name": "web", "upstream": "{B}"}, {"name": "new", "path": "/new", "upstream": "{A}", "strip_path": true}]}"#)
        fixture.gateway.send(signal: SIGHUP)
        #expect(await eventually { (try? await fixture.request("/x").json["served_by"]) == Self.second }, "the new table never applied")
        #expect(try await fixture.request("/new/y").json["path"] == "/y")
        // A path whose readings fall under different routes: a servlet container behind `web`
        // would read `/new;x/y` as `/new/y`, which is `new`'s.
        #expect(try await fixture.request("/new;x/y").status == 400)
        #expect(await fixture.reloads("ok") == 1)

        try fixture.write(#"{"routes": [{"name": "web", "upstream": "ftp://nowhere", "strip_paths": true}]}"#)
        fixture.gateway.send(signal: SIGHUP)
        #expect(await eventually { await fixture.reloads("failed") == 1 }, "the failed reload was not counted")
        #expect(try await fixture.request("/x").json["served_by"] == Self.second, "an invalid file replaced the routes in force")
        #expect(await eventually { fixture.gateway.logs.contains("routes reload failed") })
        let logs = fixture.gateway.logs
        #expect(logs.contains("routes[0] \\\"web\\\".upstream") && logs.contains("strip_paths"), "the log names the route and member: \(logs.suffix(1200))")
    }

    @Test("SIGHUP under load: every request is answered by one table or the other, none is lost")
    func reloadUnderLoad() async throws {
        let fixture = try await Fixture()
        defer { fixture.stop() }
        let tables = [#"{"routes": [{"name": "web", "upstream": "{A}"}]}"#, #"{"routes": [{"name": "web", "upstream": ["{B}", "{A}"]}]}"#]
        try fixture.write(tables[0])
        try await fixture.startGateway(["PUBLIC_PATHS": "/"])
        let port = fixture.gateway.port
        let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try await blocking {
                        let client = try RawHTTPClient(port: port)
                        let request = "GET /x HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
                        return try (0..<300).map { _ in
                            try client.send(request)
                            return try client.readResponse().status
                        }
                    }
                }
            }
            group.addTask {
                for round in 0..<10 {
                    try fixture.write(tables[(round + 1) % 2])
                    fixture.gateway.send(signal: SIGHUP)
                    _ = await eventually(timeout: .seconds(5)) { await fixture.reloads("ok") > round }
                }
                return []
            }
            var all = [Int]()
            for try await part in group { all += part }
            return all
        }
        #expect(statuses.count == 1200)
        #expect(statuses.allSatisfy { $0 == 200 }, "\(Set(statuses))")
        #expect(await fixture.reloads("failed") == 0)
    }

    @Test("config check names the route and the member of every problem; UPSTREAM_URL is optional with ROUTES_FILE")
    func configCheck() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("routes-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let base = [
            "PATH": "/usr/bin:/bin", "ROUTES_FILE": file.path,
            "ENTRA_TENANT_ID": DevIdentityProvider.tenantID, "ENTRA_AUDIENCE": DevIdentityProvider.audience,
        ]
        try #"{"routes": [{"path": "/c", "upstream": "http://x", "strip_paths": true}, {"path": "/c", "upstream": "http://y"}]}"#
            .write(to: file, atomically: true, encoding: .utf8)
        let bad = try await ProcessRunner.run(GatewayExecutable.path, ["config", "check"], environment: base)
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("ROUTES_FILE: routes[0]: unknown member \"strip_paths\""), "\(bad.stderr)")
        #expect(bad.stderr.contains("same host and path"), "\(bad.stderr)")

        try #"{"routes": [{"name": "a", "upstream": "http://127.0.0.2:1"}, {"name": "b", "path": "/b", "upstream": "https://[::1"}]}"#
            .write(to: file, atomically: true, encoding: .utf8)
        let badURL = try await ProcessRunner.run(GatewayExecutable.path, ["config", "check"], environment: base)
        #expect(badURL.status != 0)
        #expect(badURL.stderr.contains("routes[1] \"b\".upstream"), "\(badURL.stderr)")

        try #"{"routes": [{"name": "a", "upstream": "http://127.0.0.2:1"}]}"#.write(to: file, atomically: true, encoding: .utf8)
        let good = try await ProcessRunner.run(GatewayExecutable.path, ["config", "check"], environment: base)
        #expect(good.status == 0, "\(good.stdout) \(good.stderr)")

        try #"{"routes": [{"name": "root", "upstream": "http://127.0.0.2:1"}]}"#.write(to: file, atomically: true, encoding: .utf8)
        let clash = try await ProcessRunner.run(
            GatewayExecutable.path, ["config", "check"], environment: base.merging(["UPSTREAM_URL": "http://127.0.0.3:1"]) { $1 })
        #expect(clash.status != 0 && clash.stderr.contains("catch-all"), "\(clash.stderr)")
    }
}
