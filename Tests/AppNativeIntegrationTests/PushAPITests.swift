import AppNativeAPNs
import AppNativeCore
@testable import AppNativeGateway
import AppNativeJSON
import AppNativeTesting
import Foundation
import Testing

/// The push API end to end: a gateway whose admin listener serves `/push/<kind>`, the fake APNs
/// server behind it, and the recording upstream standing in for the dead-token webhook.
@Suite("Push API", .timeLimit(.minutes(2)))
struct PushAPITests {
    static let keys = ["key-one-0123456789abcdef", "key-two-0123456789abcdef"]
    static let ok = String(repeating: "ab", count: 32)
    static let unregistered = "410" + String(repeating: "0", count: 61)
    static let bad = "ba0d" + String(repeating: "0", count: 60)

    struct Fixture {
        let fake: FakeAPNsPeer
        let webhook: LoopbackPeer
        let gateway: GatewayProcess

        func stop() {
            gateway.stop()
            webhook.stop()
            fake.stop()
        }

        func post(
            _ path: String, key: String?, json: String, method: String = "POST", port: Int? = nil
        ) async throws -> (Int, JSONObject) {
            let port = port ?? gateway.adminPort
            let response = try await blocking {
                let client = try RawHTTPClient(port: port)
                var head = "\(method) \(path) HTTP/1.1\r\nHost: admin\r\nContent-Type: application/json\r\n"
                if let key { head += "Authorization: Bearer \(key)\r\n" }
                head += "Content-Length: \(json.utf8.count)\r\n\r\n"
                try client.send(head + json)
                return try client.readResponse(to: method)
            }
            let object = (try? JSONParser().parse(response.body).objectValue) ?? [:]
            return (response.status, object)
        }

        /// What the webhook (echo peer) received.
        func webhookRequests() async throws -> [[String: Any]] {
            let port = webhook.ports[1]
            let response = try await blocking { try RawHTTPClient.get(port: port, "/log") }
            let log = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            return log?["requests"] as? [[String: Any]] ?? []
        }
    }

    static func start(_ extra: [String: String] = [:]) async throws -> Fixture {
        let fake = try await FakeAPNsPeer.start(tls: true)
        let webhook = try await LoopbackPeer.start(ProcessRunner.python, [ProcessRunner.repositoryRoot() + "/Tests/Peers/echo_peer.py"])
        let environment = ProxyFixture.publicEnvironment([
            "UPSTREAM_URL": "http://127.0.0.1:\(webhook.ports[0])", "EVENT_LOOPS": "1",
            "PUSH_API_KEYS": keys.joined(separator: ","), "PUSH_MAX_BATCH": "3",
            "DEAD_TOKEN_WEBHOOK_URL": "http://127.0.0.1:\(webhook.ports[0])/dead-tokens",
            "APNS_KEY": fake.keyPEM.replacing("\n", with: "\\n"), "APNS_KEY_ID": FakeAPNsPeer.keyID,
            "APNS_TEAM_ID": FakeAPNsPeer.teamID, "APNS_BUNDLE_ID": FakeAPNsPeer.bundleID,
            "APNS_BASE_URL": fake.baseURL, "APNS_CA_FILE": fake.caFile ?? "",
        ]).merging(extra) { $1 }
        do {
            let gateway = try await GatewayProcess.start(environment: environment)
            return Fixture(fake: fake, webhook: webhook, gateway: gateway)
        } catch {
            webhook.stop()
            fake.stop()
            throw error
        }
    }

    @Test("authentication: no key, a wrong key and a GET are refused; both keys work")
    func authentication() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let body = #"{"tokens":["\#(Self.ok)"],"webapp_id":"w"}"#
        #expect(try await fixture.post("/push/approvals", key: nil, json: body).0 == 401)
        #expect(try await fixture.post("/push/approvals", key: "key-one-0123456789abcdeX", json: body).0 == 401)
        #expect(try await fixture.post("/push/approvals", key: "key-one", json: body).0 == 401)
        #expect(try await fixture.post("/push/approvals", key: Self.keys[0], json: body, method: "PUT").0 == 405)
        #expect(try await fixture.post("/push/nothing", key: Self.keys[0], json: body).0 == 404)
        for key in Self.keys {
            let (status, answer) = try await fixture.post("/push/approvals", key: key, json: body)
            #expect(status == 200)
            #expect(answer["sent"] == 1)
        }
        #expect(try fixture.fake.records().count == 2)
        // The other admin routes still work.
        let health = try await blocking { [port = fixture.gateway.adminPort] in try RawHTTPClient.get(port: port, "/healthz") }
        #expect(health.status == 200)
    }

    @Test("PUSH_API_LISTEN: the API moves to its own listener, which serves nothing else")
    func ownListener() async throws {
        let fixture = try await Self.start(["PUSH_API_LISTEN": "127.0.0.1:0"])
        defer { fixture.stop() }
        let pushPort = try #require(fixture.gateway.pushPort)
        #expect(pushPort != fixture.gateway.adminPort)
        let body = #"{"tokens":["\#(Self.ok)"]}"#
        let (status, answer) = try await fixture.post("/push/silent", key: Self.keys[0], json: body, port: pushPort)
        #expect(status == 200)
        #expect(answer["sent"] == 1)
        // With a listener of its own, the API is not on the admin listener: a POST there is refused like any other.
        #expect(try await fixture.post("/push/silent", key: Self.keys[0], json: body).0 == 405)
        #expect(try fixture.fake.records().count == 1)
        let health = try await blocking { try RawHTTPClient.get(port: pushPort, "/metrics") }
        #expect(health.status == 404)
    }

    @Test("a batch answers per token in order; dead tokens go to the webhook")
    func batchAndWebhook() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let (status, answer) = try await fixture.post(
            "/push/alert", key: Self.keys[1],
            json: #"{"tokens":["\#(Self.ok)","\#(Self.unregistered)","\#(Self.bad)"],"title":"T","body":"B","data":{"webapp_id":"hr"},"interruption_level":"active"}"#)
        #expect(status == 200)
        let results = try #require(answer["results"]?.arrayValue)
        #expect(results.map { $0["token"]?.stringValue } == [Self.ok, Self.unregistered, Self.bad])
        #expect(results.map { $0["sent"] } == [true, false, false])
        #expect(results[1]["reason"] == "Unregistered")
        #expect(results[1]["timestamp"] == 1_700_000_000_000)
        #expect(results[2]["reason"] == "BadDeviceToken")
        #expect(results.map { $0["permanent"] } == [false, true, true])
        #expect(answer["sent"] == 1)
        #expect(answer["not_sent"] == 2)
        #expect(answer["dead_tokens_reported"] == true)

        let record = try #require(try fixture.fake.records().first { $0["token"]?.stringValue == Self.ok })
        let expected = try JSONParser().parse(
            #"{"aps":{"alert":{"title":"T","body":"B"},"sound":"default","interruption-level":"active"},"webapp_id":"hr"}"#)
        #expect(record["payload"] == expected)

        let calls = try await fixture.webhookRequests()
        #expect(calls.count == 1)
        let call = try #require(calls.first)
        #expect(call["method"] as? String == "POST")
        #expect(call["target"] as? String == "/dead-tokens")
        let sent = try JSONParser().parse(try #require(call["body"] as? String)).objectValue
        #expect(sent?["kind"] == "alert")
        let tokens = sent?["tokens"]?.arrayValue ?? []
        #expect(Set(tokens.compactMap { $0["token"]?.stringValue }) == [Self.unregistered, Self.bad])
        #expect(tokens.first { $0["token"]?.stringValue == Self.unregistered }?["timestamp"] == 1_700_000_000_000)
    }

    @Test("bad input is 422 naming every failing field; nothing is sent")
    func validation() async throws {
        let fixture = try await Self.start()
        defer { fixture.stop() }
        let cases: [(String, String, Set<String>)] = [
            ("/push/alert", #"{"tokens":["\#(Self.ok)","zz"],"body":"B","colour":1}"#, ["tokens[1]", "title", "colour"]),
            ("/push/silent", #"{"tokens":["a","b","c","d"]}"#, ["tokens"]),
            ("/push/silent", #"{"tokens":["\#(Self.ok)"],"data":{"aps":{}}}"#, ["data.aps"]),
            ("/push/critical", #"{"tokens":["\#(Self.ok)"],"title":"T","body":"B","volume":"loud"}"#, ["webapp_id", "volume"]),
            ("/push/live-activity/update", #"{"tokens":["\#(Self.ok)"],"state":{"title":""},"priority":7}"#, ["state", "priority"]),
            ("/push/live-activity/start", #"{"tokens":["\#(Self.ok)"],"state":{"title":"x"}}"#, ["attributes"]),
            ("/push/silent", #"{"tokens":["\#(Self.ok)"],"data":{"blob":"\#(String(repeating: "x", count: 5000))"}}"#, ["$"]),
            ("/push/silent", "not json", ["$"]),
        ]
        for (path, body, fields) in cases {
            let (status, answer) = try await fixture.post(path, key: Self.keys[0], json: body)
            #expect(status == 422, "\(path)")
            #expect(answer["error"] == "invalid_request")
            let named = Set((answer["fields"]?.arrayValue ?? []).compactMap { $0["field"]?.stringValue })
            #expect(named == fields, "\(path) \(body.prefix(60))")
        }
        #expect(try fixture.fake.records().isEmpty)
    }

    @Test("every kind decodes to the same notification as the builder")
    func decoding() throws {
        func decode(_ kind: String, _ json: String) throws -> PushRequest {
            try PushRequest.decode(kind: #require(PushKind(rawValue: kind)), body: Array(json.utf8), maxBatch: 10).get()
        }
        let token = #""tokens":["\#(Self.ok)"]"#
        #expect(try decode("widgets", "{\(token),\"webapp_id\":\"w\",\"widgets\":[]}").notification.payload["widgets"] == [])
        #expect(try decode("widgets", "{\(token),\"webapp_id\":\"w\"}").notification.payload["widgets_refresh"] == true)
        let critical = try decode("critical", "{\(token),\"webapp_id\":\"o\",\"title\":\"T\",\"body\":\"B\",\"acknowledge_label\":\"\",\"volume\":2}")
        #expect(critical.notification.payload["ack_label"] == nil)
        #expect(critical.notification.payload["aps"]?["sound"]?["volume"] == 1.0)
        let end = try decode("live-activity/end", "{\(token),\"dismiss_at\":1790000000.7,\"collapse_id\":\"c\",\"expiration\":0}")
        #expect(end.notification.payload["aps"]?["dismissal-date"] == 1_790_000_000)
        #expect(end.notification.collapseID == "c")
        #expect(end.notification.expiration == 0)
        let start = try decode(
            "live-activity/start",
            "{\(token),\"state\":{\"title\":\"A\",\"steps\":[\"x\",\"y\"],\"currentStep\":1},\"attributes\":{\"webAppID\":\"w\",\"activityID\":\"a\",\"webAppName\":\"W\"}}")
        #expect(start.notification.payload["aps"]?["content-state"] == ["title": "A", "steps": ["x", "y"], "currentStep": 1])
        #expect(start.notification.pushType.rawValue == "liveactivity")
    }

    /// A push API without a listener (its sender is never reached by these tests).
    static func api() -> PushAPI {
        PushAPI(
            configuration: PushAPIConfiguration(apiKeys: keys.map { Secret($0) }),
            sender: APNsSender(environment: [:], metrics: MetricsRegistry()), logger: .disabled, metrics: MetricsRegistry())
    }

    /// The status of a refusal, or nil when the head is admitted.
    static func refusal(_ admission: PushAPI.Admission) -> Int? {
        if case .refused(let response) = admission { return response.status }
        return nil
    }

    @Test("the head decides: the key first (401 whatever else is wrong), then the kind (404), the method (405) and a declared length (413)")
    func admission() {
        let api = Self.api()
        let cap = UInt64(PushAPI.maxBodyBytes)
        for authorization in [nil, "", "Bearer", "Bearer ", "Basic \(Self.keys[0])", "Bearer key-one", "Bearer \(Self.keys[0])x"] {
            for (method, path, length) in [("POST", "/push/silent", UInt64?(10)), ("GET", "/push/nothing", nil), ("PUT", "/push/alert", cap + 1)] {
                let admission = api.admit(method: method, path: path, authorization: authorization, declaredBodyBytes: length)
                #expect(Self.refusal(admission) == 401, "\(authorization ?? "none") \(method) \(path)")
            }
        }
        let key = "Bearer \(Self.keys[1])"
        #expect(Self.refusal(api.admit(method: "POST", path: "/push/nothing", authorization: key, declaredBodyBytes: cap + 1)) == 404)
        #expect(Self.refusal(api.admit(method: "POST", path: "/push/", authorization: key, declaredBodyBytes: nil)) == 404)
        #expect(Self.refusal(api.admit(method: "GET", path: "/push/silent", authorization: key, declaredBodyBytes: nil)) == 405)
        #expect(Self.refusal(api.admit(method: "PUT", path: "/push/silent", authorization: key, declaredBodyBytes: cap + 1)) == 405)
        #expect(Self.refusal(api.admit(method: "POST", path: "/push/silent", authorization: key, declaredBodyBytes: cap + 1)) == 413)
        #expect(Self.refusal(api.admit(method: "POST", path: "/push/silent", authorization: key, declaredBodyBytes: .max)) == 413)
        for length in [nil, 0, cap] {
            let admission = api.admit(method: "POST", path: "/push/live-activity/end", authorization: "bearer  \(Self.keys[0]) ", declaredBodyBytes: length)
            guard case .admitted(let request) = admission else {
                Issue.record("a valid head with length \(length.map(String.init) ?? "none") was refused")
                continue
            }
            #expect(request.kind == .liveActivityEnd)
        }
    }

    @Test("an admitted body is kept up to the cap; the chunk that passes it drops what was kept and what follows")
    func bodyCap() {
        var body = PushRequestBody(limit: 10, declaredBytes: 10)
        #expect(body.receive([1, 2, 3, 4][...]) == .kept)
        #expect(body.receive([5, 6, 7, 8, 9, 10][...]) == .kept)
        #expect(body.receive([][...]) == .kept)
        #expect(body.finish() == .complete([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]))
        #expect(body.finish() == nil)
        #expect(body.receive([1][...]) == .dropped)

        var over = PushRequestBody(limit: 10)
        #expect(over.receive([UInt8](repeating: 1, count: 8)[...]) == .kept)
        #expect(over.receive([1, 2, 3][...]) == .passedLimit)
        #expect(over.state == .tooLarge)
        #expect(over.receive([1][...]) == .dropped)
        #expect(over.finish() == .tooLarge)
        // A declared length over the cap reserves nothing (such a head is refused anyway).
        var huge = PushRequestBody(limit: 10, declaredBytes: .max)
        #expect(huge.receive([UInt8](repeating: 1, count: 11)[...]) == .passedLimit)
    }

    @Test("an admitted body that does not decode is 422; one over the cap handed to handle is 413")
    func handleWithoutListener() async throws {
        let api = Self.api()
        guard case .admitted(let request) = api.admit(
            method: "POST", path: "/push/silent", authorization: "Bearer \(Self.keys[0])", declaredBodyBytes: nil)
        else {
            Issue.record("a valid head was refused")
            return
        }
        #expect(await api.handle(request, body: Array("{}".utf8)).status == 422)
        #expect(await api.handle(request, body: [UInt8](repeating: 32, count: PushAPI.maxBodyBytes + 1)).status == 413)
    }

    @Test("configuration: the API is off without keys; with keys the APNs credentials are checked")
    func configuration() throws {
        let base = ProxyFixture.publicEnvironment(["UPSTREAM_URL": "http://127.0.0.1:1"])
        #expect(try !GatewayConfiguration.fromEnvironment(base).push.isEnabled)
        var withKeys = base
        withKeys["PUSH_API_KEYS"] = Self.keys[0]
        do {
            _ = try GatewayConfiguration.fromEnvironment(withKeys)
            Issue.record("PUSH_API_KEYS without APNS_* must be refused")
        } catch {
            #expect(error.problems.contains { $0.variable == "APNS_KEY_ID" })
        }
        withKeys["PUSH_API_KEYS"] = "short"
        withKeys["PUSH_MAX_BATCH"] = "0"
        do {
            _ = try GatewayConfiguration.fromEnvironment(withKeys)
            Issue.record("a short key and a zero batch must be refused")
        } catch {
            #expect(error.problems.contains { $0.variable == "PUSH_API_KEYS" })
            #expect(error.problems.contains { $0.variable == "PUSH_MAX_BATCH" })
        }
    }
}
