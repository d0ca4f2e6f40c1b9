import AppNativeDevPeers
import AppNativeHTTP
import AppNativeTesting
import Foundation
import Testing

/// The example upstream of docs/upstream-contract.md behind the real gateway, with a local JWKS.
struct NativeRoutesFixture {
    let jwks: LoopbackPeer
    let upstream: LoopbackPeer
    let gateway: GatewayProcess

    static func start(_ environment: [String: String] = [:]) async throws -> NativeRoutesFixture {
        let root = ProxyFixture.root
        let jwksFile = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json")
        try ProxyFixture.devProvider().jwksDocument.write(to: jwksFile, atomically: true, encoding: .utf8)
        let jwks = try await LoopbackPeer.start(ProcessRunner.python, [root + "/Tests/Peers/jwks_server.py", "--document", jwksFile.path])
        let upstream = try await LoopbackPeer.start(ProcessRunner.python, [root + "/docs/examples/native_upstream.py", "--port", "0"])
        var env = [
            "UPSTREAM_URL": "http://127.0.0.1:\(upstream.port)", "EVENT_LOOPS": "2",
            "ENTRA_TENANT_ID": DevIdentityProvider.tenantID, "ENTRA_AUDIENCE": DevIdentityProvider.audience,
            "ENTRA_JWKS_URL": "http://127.0.0.1:\(jwks.port)/keys",
            "SESSION_SECRET": ProxyFixture.sessionSecret, "SESSION_SECURE": "false",
        ]
        env.merge(environment) { $1 }
        let gateway = try await GatewayProcess.start(environment: env)
        return NativeRoutesFixture(jwks: jwks, upstream: upstream, gateway: gateway)
    }

    var port: Int { gateway.port }

    func stop() {
        gateway.stop()
        upstream.stop()
        jwks.stop()
    }

    static func token() throws -> String {
        try ProxyFixture.devProvider().token(issuedAt: Date().timeIntervalSince1970, lifetime: .seconds(3600))
    }

    /// A request to the gateway with the dev token.
    func call(_ method: String, _ target: String, json: String? = nil, headers: [String: String] = [:]) async throws -> RawHTTPClient.Response {
        let port = port
        var headers = headers
        if headers["Authorization"] == nil { headers["Authorization"] = "Bearer " + (try Self.token()) }
        if json != nil { headers["Content-Type"] = "application/json" }
        let body = Array((json ?? "").utf8)
        let sent = headers
        return try await blocking { try RawHTTPClient.request(port: port, method: method, target, headers: sent, body: body) }
    }

    /// What the example upstream recorded (`/_example/<what>`), decoded.
    func recorded(_ what: String) async throws -> [[String: Any]] {
        let port = upstream.port
        let response = try await blocking { try RawHTTPClient.get(port: port, "/_example/" + what) }
        return (try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]]) ?? []
    }
}

@Suite("Native routes through the gateway", .serialized)
struct NativeRoutesTests {
    static func json(_ response: RawHTTPClient.Response) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
    }

    @Test("device registration: absent keeps, null clears, and the identity comes from the token, not the body")
    func deviceRegistration() async throws {
        let fixture = try await NativeRoutesFixture.start()
        defer { fixture.stop() }
        let first = try await fixture.call("POST", "/api/devices", json: #"{"device_id":"d1","push_token":"ab12","user_email":"mallory@example.com"}"#)
        #expect(first.status == 200)
        #expect(first.bodyText == #"{"ok":true}"#)
        #expect(first.head.headers.first("Content-Type") == "application/json")
        #expect(first.head.headers.first("Set-Cookie") != nil, "a token-authenticated call gets the session cookie")
        let second = try await fixture.call("POST", "/api/devices", json: #"{"device_id":"d1","user_email":null}"#)
        #expect(second.status == 200)
        let devices = try await fixture.recorded("devices")
        let device = try #require(devices.first)
        #expect(device["push_token"] as? String == "ab12", "absent push_token kept the stored value")
        #expect(device.keys.contains("user_email") && device["user_email"] is NSNull, "null cleared user_email")
        let user = DevIdentityProvider.User()
        for event in try await fixture.recorded("events?route=devices") {
            #expect(event["oid"] as? String == user.objectID)
            #expect(event["email"] as? String == user.email)
        }
        let bodies = try await fixture.recorded("events?route=devices").map { $0["body"] as? [String: Any] ?? [:] }
        #expect(bodies.last?.keys.sorted() == ["device_id", "user_email"], "absent stays absent, null stays null")
    }

    @Test("the backend receives the model as the reference's callback model writes it: unknown keys dropped, floats and datetimes normalised, Content-Length of the new body")
    func forwardedBodyIsTheNormalisedModel() async throws {
        let fixture = try await NativeRoutesFixture.start()
        defer { fixture.stop() }
        let sent = #"{"extra":1,"recorded_at":1700000000000,"longitude":-0,"latitude":12,"device_id":"d1","user_email":null,"accuracy":1e1}"#
        let response = try await fixture.call("POST", "/api/locations", json: sent)
        #expect(response.status == 200)
        // model_dump_json(exclude_unset=True) of the reference's LocationUpdate for `sent`.
        let expected = #"{"device_id":"d1","user_email":null,"latitude":12.0,"longitude":0.0,"accuracy":10.0,"recorded_at":"2023-11-14T22:13:20Z"}"#
        let event = try #require(try await fixture.recorded("events?route=locations").last)
        let headers = event["headers"] as? [String: Any] ?? [:]
        #expect(headers["content-length"] as? String == String(expected.utf8.count))
        #expect(headers["content-type"] as? String == "application/json")
        let body = event["body"] as? [String: Any] ?? [:]
        #expect(body.keys.sorted() == ["accuracy", "device_id", "latitude", "longitude", "recorded_at", "user_email"])
        #expect(body["recorded_at"] as? String == "2023-11-14T22:13:20Z")
        #expect(body["user_email"] is NSNull)
        #expect(body["latitude"] as? Double == 12 && body["accuracy"] as? Double == 10)
    }

    @Test("every event route answers as contract/routes.md §1 says")
    func eventRoutes() async throws {
        let fixture = try await NativeRoutesFixture.start()
        defer { fixture.stop() }
        let location = try await fixture.call("POST", "/api/locations", json: #"{"device_id":"d1","latitude":47.1,"longitude":8.5}"#)
        #expect(location.status == 200 && location.bodyText == #"{"ok":true}"#)
        let action = try await fixture.call("POST", "/api/notification-actions", json: #"{"device_id":"d1","action":"acknowledge"}"#)
        #expect(action.status == 200 && action.bodyText == #"{"ok":true}"#)
        let live = try await fixture.call("POST", "/api/live-activities", json: #"{"device_id":"d1","event":"push_to_start_token","push_token":"ff"}"#)
        #expect(live.status == 204)
        #expect(live.body.isEmpty)
        let decision = try await fixture.call("POST", "/api/approval-decisions", json: #"{"device_id":"d1","approval_id":"po-1042","decision":"approve"}"#)
        #expect(decision.status == 200)
        #expect(Self.json(decision)["message"] as? String == "Approved")
        let options = try await fixture.call("POST", "/api/widget-options", json: #"{"device_id":"d1","widget_id":"leave","field_id":"reason","query":"ill"}"#)
        #expect(options.status == 200)
        #expect((Self.json(options)["options"] as? [[String: Any]])?.first?["value"] as? String == "illness")
    }

    @Test("a malformed body is refused with 422 and never reaches the upstream")
    func malformedBody() async throws {
        let fixture = try await NativeRoutesFixture.start()
        defer { fixture.stop() }
        for body in ["{", "[1,2]", #"{"a":1,"a":2}"#] {
            let response = try await fixture.call("POST", "/api/devices", json: body)
            #expect(response.status == 422, "\(body)")
            #expect(Self.json(response)["detail"] is [Any], "\(body)")
        }
        #expect(try await fixture.recorded("events?route=devices").isEmpty)
        let tooLarge = try await fixture.call("POST", "/api/locations", json: "{\"pad\":\"" + String(repeating: "x", count: 1 << 20) + "\"}")
        #expect(tooLarge.status == 413)
    }

    @Test("authentication first; wrong method 405; other /api paths are proxied as before")
    func routing() async throws {
        let fixture = try await NativeRoutesFixture.start()
        defer { fixture.stop() }
        let port = fixture.port
        let anonymous = try await blocking {
            try RawHTTPClient.request(port: port, method: "POST", "/api/devices", headers: ["Content-Type": "application/json"], body: Array(#"{"device_id":"x"}"#.utf8))
        }
        #expect(anonymous.status == 401)
        let wrongMethod = try await fixture.call("GET", "/api/devices")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.head.headers.first("Allow") == "POST")
        let other = try await fixture.call("GET", "/api/unknown")
        #expect(other.status == 404)  // the upstream's own answer
    }

    @Test("upstream 4xx pass through, 5xx become 502 with a JSON body")
    func upstreamErrors() async throws {
        let fixture = try await NativeRoutesFixture.start()
        defer { fixture.stop() }
        let conflict = try await fixture.call("POST", "/api/locations", json: #"{"device_id":"d1","latitude":1,"longitude":2}"#, headers: ["X-Example-Status": "409"])
        #expect(conflict.status == 409)
        #expect(Self.json(conflict)["detail"] as? String == "forced by the test")
        let failure = try await fixture.call("GET", "/api/widgets", headers: ["X-Example-Status": "500"])
        #expect(failure.status == 502)
        #expect(Self.json(failure)["detail"] is String)
    }

    @Test("a per-route URL receives that route's events")
    func perRouteURL() async throws {
        let probe = try await NativeRoutesFixture.start()
        let upstreamPort = probe.upstream.port
        probe.gateway.stop()
        defer { probe.upstream.stop(); probe.jwks.stop() }
        var env = [
            "UPSTREAM_URL": "http://127.0.0.1:\(upstreamPort)", "EVENT_LOOPS": "1",
            "ENTRA_TENANT_ID": DevIdentityProvider.tenantID, "ENTRA_AUDIENCE": DevIdentityProvider.audience,
            "ENTRA_JWKS_URL": "http://127.0.0.1:\(probe.jwks.port)/keys",
        ]
        env["NATIVE_UPSTREAM_LOCATIONS_URL"] = "http://127.0.0.1:\(upstreamPort)/hooks/v2/locations"
        let gateway = try await GatewayProcess.start(environment: env)
        defer { gateway.stop() }
        let port = gateway.port
        let token = try NativeRoutesFixture.token()
        let response = try await blocking {
            try RawHTTPClient.request(
                port: port, method: "POST", "/api/locations", headers: ["Authorization": "Bearer " + token, "Content-Type": "application/json"],
                body: Array(#"{"device_id":"d1","latitude":1,"longitude":2}"#.utf8)
            )
        }
        #expect(response.status == 200)
        let events = try await probe.recorded("events?route=locations")
        #expect(events.first?["path"] as? String == "/hooks/v2/locations")
    }

    @Test("apple-app-site-association from configuration: unauthenticated, JSON, native and auth paths excluded")
    func appSiteAssociation() async throws {
        let fixture = try await NativeRoutesFixture.start(["APPLE_APP_IDS": "ABCDE12345.com.example.app"])
        defer { fixture.stop() }
        let port = fixture.port
        let response = try await blocking { try RawHTTPClient.get(port: port, "/.well-known/apple-app-site-association") }
        #expect(response.status == 200)
        #expect(response.head.headers.first("Content-Type") == "application/json")
        #expect(response.bodyText == #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"/api/*","exclude":true},{"/":"/.auth/*","exclude":true},{"/":"/*"}]}]}}"#)
    }

    @Test("a feed with one invalid widget among valid ones: the rest arrives, the invalid one is logged and counted")
    func feedDropsInvalidEntries() async throws {
        let fixture = try await NativeRoutesFixture.start()
        defer { fixture.stop() }
        let feed = try await fixture.call("GET", "/api/widgets?device_id=include-invalid")
        #expect(feed.status == 200)
        let widgets = try #require(Self.json(feed)["widgets"] as? [[String: Any]])
        let ids = widgets.compactMap { $0["id"] as? String }
        #expect(ids == ["greeting", "open-tickets", "week", "tasks", "sales", "quota", "leave", "news"])
        #expect(Self.json(feed)["schema"] as? Int == 1)
        // Response encoding: non-null defaults are written (contract/models.md §0).
        #expect(widgets.first?["required"] as? Bool == false && widgets.first?["defaultEnabled"] as? Bool == true)
        let approvals = try await fixture.call("GET", "/api/approvals?device_id=include-invalid")
        #expect(approvals.status == 200)
        #expect((Self.json(approvals)["approvals"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["po-1042"])
        let adminPort = fixture.gateway.adminPort
        let metrics = try await blocking { try RawHTTPClient.get(port: adminPort, "/metrics") }
        #expect(metrics.bodyText.contains(#"appnative_native_feed_entries_dropped_total{route="widgets"} 1"#))
        #expect(metrics.bodyText.contains(#"appnative_native_feed_entries_dropped_total{route="approvals"} 1"#))
        let logged = fixture.gateway.logs
        #expect(logged.contains("broken-stats") && logged.contains("widgets[2].data.items"), "\(logged.suffix(2000))")
    }

    @Test("request bodies are held to the contract: every error with its path in one 422")
    func contractValidation() async throws {
        let fixture = try await NativeRoutesFixture.start()
        defer { fixture.stop() }
        let response = try await fixture.call("POST", "/api/locations", json: #"{"device_id":123,"latitude":91,"longitude":-181}"#)
        #expect(response.status == 422)
        let detail = try #require(Self.json(response)["detail"] as? [[String: Any]])
        let locations = detail.compactMap { ($0["loc"] as? [Any])?.compactMap { $0 as? String }.joined(separator: ".") }
        #expect(Set(locations) == ["body.device_id", "body.latitude", "body.longitude"], "\(detail)")
        for (route, body) in [
            ("devices", #"{"device_id":"d","platform":"android"}"#),
            ("widget-options", #"{"device_id":"d","field_id":"f","widget_id":"w","form_id":"x"}"#),
            ("widget-actions", #"{"device_id":"d","widget_id":"w","action_id":"a","values":null}"#),
            ("approval-decisions", #"{"device_id":"d","approval_id":"a","decision":"maybe"}"#),
            ("live-activities", #"{"device_id":"d","event":"started"}"#),
            ("notification-actions", #"{"device_id":"d","action":"a","data":[1]}"#),
        ] {
            let refused = try await fixture.call("POST", "/api/" + route, json: body)
            #expect(refused.status == 422, "\(route): \(refused.bodyText)")
        }
        #expect(try await fixture.recorded("events").isEmpty, "nothing invalid reached the upstream")
    }

    @Test("an upstream result the contract refuses is answered 502; a valid one is re-serialized by the models")
    func invalidResult() async throws {
        let fixture = try await NativeRoutesFixture.start()
        defer { fixture.stop() }
        let broken = try await fixture.call("POST", "/api/widget-actions", json: #"{"device_id":"d","widget_id":"w","action_id":"broken-result"}"#)
        #expect(broken.status == 502)
        #expect(Self.json(broken)["detail"] is String)
        let valid = try await fixture.call("POST", "/api/widget-actions", json: #"{"device_id":"d","widget_id":"w","action_id":"go"}"#)
        #expect(valid.status == 200)
        let widget = try #require(Self.json(valid)["widget"] as? [String: Any])
        #expect(widget["id"] as? String == "open-tickets")
        #expect(widget["required"] as? Bool == false, "widgets inside results carry their defaults")
    }
}
