@testable import AppNativeAPNs
import AppNativeCore
import AppNativeJSON
import AppNativeModels
import AppNativeTesting
import Foundation
import Testing

/// The sender against `Tests/Peers/fake_apns.py` over TLS (test CA) and h2c: every recorded
/// request compared with the contract, every Apple answer mapped, retries, multiplexing, stalls.
@Suite("Sender against the fake APNs server", .timeLimit(.minutes(2)))
struct FakeAPNsTests {
    static let okToken = String(repeating: "ab", count: 32)

    struct Harness {
        let fake: FakeAPNsPeer
        let sender: APNsSender
        let configuration: APNsConfiguration
        let metrics: MetricsRegistry
        let logs: InMemoryLogSink

        func records(token: String? = nil) throws -> [JSONObject] {
            try fake.records().filter { token == nil || $0["token"]?.stringValue == token }
        }

        func stop() {
            sender.shutdown()
            fake.stop()
        }
    }

    static func harness(
        tls: Bool, requestTimeout: Duration = .seconds(5), maxConcurrentPushes: Int = 100,
        serverStreamLimit: Int = 1000, throttlesAfterRejection: Bool = false
    ) async throws -> Harness {
        let fake = try await FakeAPNsPeer.start(
            tls: tls, maxConcurrentStreams: serverStreamLimit, throttlesAfterRejection: throttlesAfterRejection)
        let configuration = try testConfiguration(baseURL: fake.baseURL, caFile: fake.caFile)
        let metrics = MetricsRegistry()
        let logs = InMemoryLogSink()
        let sender = APNsSender(
            options: APNsSenderOptions(
                requestTimeout: requestTimeout,
                retryPolicy: APNsRetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50)),
                maxConcurrentPushes: maxConcurrentPushes),
            logger: Logger(sink: logs, minimumLevel: .debug),
            metrics: metrics,
            jitter: { 0.5 })
        return Harness(fake: fake, sender: sender, configuration: configuration, metrics: metrics, logs: logs)
    }

    static func token(_ prefix: String) -> String {
        prefix + String(repeating: "0", count: 64 - prefix.count)
    }

    @Test("every kind: the recorded request matches the contract field by field", arguments: [true, false])
    func everyKind(tls: Bool) async throws {
        let harness = try await Self.harness(tls: tls)
        defer { harness.stop() }
        let state = LiveActivityState(
            title: "Deploy", subtitle: "api", progress: JSONNumber(0.5), timerEnd: Timestamp(unixSeconds: 1_790_519_400))
        let attributes = LiveActivityAttributes(webAppID: "ci", activityID: "run-1", webAppName: "CI")
        let notifications: [APNsNotification] = [
            try .alert(title: "Hi", body: "There", data: ["webapp_id": "hr"], path: "/x", interruptionLevel: .timeSensitive),
            try .critical(webAppID: "ops", title: "Down", body: "DB", volume: 0.3),
            try .silent(data: ["sync": true]),
            .widgetUpdate(webAppID: "w", widgets: [["id": "k", "kind": "kpi", "data": ["value": 3]]]),
            .widgetUpdate(webAppID: "w", widgets: nil),
            .approvalsRefresh(webAppID: "w"),
            try .liveActivityStart(state: state, attributes: attributes),
            try .liveActivityUpdate(state: state, alertTitle: "Half", priority: 5),
            try .liveActivityEnd(dismissAt: 1_790_000_000),
        ]
        for (index, notification) in notifications.enumerated() {
            let token = String(format: "%064x", index + 1)
            let result = try await harness.sender.send(notification, to: token, configuration: harness.configuration)
            #expect(result.sent, "\(notification.kind) was refused: \(String(describing: result.reason))")
            #expect(result.status == 200)
            let record = try #require(try harness.records(token: token).first)
            #expect(record["method"] == "POST")
            #expect(record["path"] == .string("/3/device/" + token))
            #expect(record["payload"] == .object(notification.payload))
            #expect(record["jwt_valid"] == true)
            #expect(record["jwt_header"] == .object(["alg": "ES256", "kid": .string(FakeAPNsPeer.keyID)]))
            #expect(record["jwt_claims"]?["iss"] == .string(FakeAPNsPeer.teamID))
            let headers = try #require(record["headers"]?.objectValue)
            #expect(headers["apns-id"] == .string(result.apnsID))
            #expect(headers["apns-push-type"] == .string(notification.pushType.rawValue))
            #expect(headers["apns-priority"] == .string(String(notification.priority)))
            #expect(headers["apns-topic"] == .string(notification.topic(bundleID: FakeAPNsPeer.bundleID)))
            #expect(headers["content-type"] == "application/json")
            #expect(headers["apns-expiration"] == nil)
            #expect(headers["apns-collapse-id"] == nil)
            #expect(headers["authorization"]?.stringValue?.hasPrefix("bearer ") == true)
        }
        // One provider token for every send.
        let authorizations = Set(try harness.records().compactMap { $0["headers"]?["authorization"]?.stringValue })
        #expect(authorizations.count == 1)
        #expect(harness.sender.providerTokenSignatures(for: harness.configuration) == 1)
    }

    @Test("expiration and collapse id reach the server")
    func optionalHeaders() async throws {
        let harness = try await Self.harness(tls: false)
        defer { harness.stop() }
        var notification = try APNsNotification.alert(title: "t", body: "b")
        notification.expiration = 1_790_000_000
        notification.collapseID = "game-7"
        let result = try await harness.sender.send(notification, to: Self.okToken, configuration: harness.configuration)
        #expect(result.sent)
        let headers = try #require(try harness.records().first?["headers"]?.objectValue)
        #expect(headers["apns-expiration"] == "1790000000")
        #expect(headers["apns-collapse-id"] == "game-7")
    }

    struct Answer: Sendable, CustomTestStringConvertible {
        var prefix: String
        var status: Int
        var reason: APNsReason
        var isPermanent: Bool
        var attempts: Int
        var testDescription: String { "\(status) \(reason.name)" }
    }

    @Test("every Apple answer is mapped to a result", arguments: [
        Answer(prefix: "ba0d", status: 400, reason: .badDeviceToken, isPermanent: true, attempts: 1),
        Answer(prefix: "410", status: 410, reason: .unregistered, isPermanent: true, attempts: 1),
        Answer(prefix: "403e", status: 403, reason: .expiredProviderToken, isPermanent: false, attempts: 1),
        Answer(prefix: "429", status: 429, reason: .tooManyRequests, isPermanent: false, attempts: 3),
        Answer(prefix: "500", status: 500, reason: .internalServerError, isPermanent: false, attempts: 3),
        Answer(prefix: "503", status: 503, reason: .serviceUnavailable, isPermanent: false, attempts: 3),
        Answer(prefix: "0dd", status: 400, reason: .unknown("FutureReason"), isPermanent: false, attempts: 1),
    ])
    func answers(answer: Answer) async throws {
        let harness = try await Self.harness(tls: true)
        defer { harness.stop() }
        let token = Self.token(answer.prefix)
        let result = try await harness.sender.send(try .silent(), to: token, configuration: harness.configuration)
        #expect(!result.sent)
        #expect(result.status == answer.status)
        #expect(result.reason == answer.reason)
        #expect(result.isPermanentlyInvalidToken == answer.isPermanent)
        #expect(result.attempts == answer.attempts)
        #expect(result.unregisteredAt == (answer.status == 410 ? 1_700_000_000_000 : nil))
        #expect(result.transportError == nil)
        let records = try harness.records(token: token)
        #expect(records.count == answer.attempts)
        #expect(Set(records.compactMap { $0["headers"]?["apns-id"]?.stringValue }) == [result.apnsID])
        let json = result.json
        #expect(json["sent"] == false)
        #expect(json["reason"] == .string(answer.reason.name))
        #expect(json["status"] == .number(JSONNumber(answer.status)))
        #expect(json["permanent"] == .bool(answer.isPermanent))

        let rendered = harness.metrics.renderPrometheus()
        #expect(rendered.contains(#"appnative_apns_pushes_total{kind="silent",outcome="rejected"} 1"#))
        let label = answer.reason.name == "FutureReason" ? "unknown" : answer.reason.name
        #expect(rendered.contains(#"appnative_apns_reasons_total{reason="\#(label)"} 1"#))
        #expect(harness.logs.all.contains { $0.metadata["apns.status"] == String(answer.status) })
    }

    @Test("a transient 429/500/503 is retried with the same apns-id, then sent", arguments: ["f1a4", "f1a5", "f1a3"])
    func retries(prefix: String) async throws {
        let harness = try await Self.harness(tls: false)
        defer { harness.stop() }
        let token = Self.token(prefix)
        let result = try await harness.sender.send(try .alert(title: "t", body: "b"), to: token, configuration: harness.configuration)
        #expect(result.sent)
        #expect(result.attempts == 2)
        let records = try harness.records(token: token)
        #expect(records.map { $0["status"]?.numberValue?.int64 } == [Int64(prefix == "f1a4" ? 429 : prefix == "f1a5" ? 500 : 503), 200])
        #expect(Set(records.compactMap { $0["headers"]?["apns-id"]?.stringValue }) == [result.apnsID])
        #expect(harness.metrics.renderPrometheus().contains("appnative_apns_retries_total 1"))
    }

    @Test("a GOAWAY that drops the connection is retried on a new one with the same apns-id", arguments: [true, false])
    func goaway(tls: Bool) async throws {
        let harness = try await Self.harness(tls: tls)
        defer { harness.stop() }
        let token = Self.token("60a")
        let result = try await harness.sender.send(try .silent(), to: token, configuration: harness.configuration)
        #expect(result.sent)
        // Usually 2. A retry may also go out before libcurl has read the close of the old
        // connection and die there unseen by the fake (it answers nothing after its GOAWAY);
        // that costs one more attempt, and the policy's third still lands on a new connection.
        #expect((2...3).contains(result.attempts))
        let records = try harness.records(token: token)
        #expect(records.count == 2)
        #expect(Set(records.compactMap { $0["headers"]?["apns-id"]?.stringValue }) == [result.apnsID])
        #expect(Set(records.compactMap { $0["connection"]?.numberValue?.int64 }).count == 2)
    }

    @Test("many concurrent pushes share one HTTP/2 connection", arguments: [true, false])
    func multiplexing(tls: Bool) async throws {
        // More streams at once than libcurl's default per-connection limit (100).
        let harness = try await Self.harness(tls: tls, maxConcurrentPushes: 250)
        defer { harness.stop() }
        let tokens = (0..<250).map { String(format: "%064x", 0xabc000 + $0) }
        let results = try await harness.sender.send(
            .approvalsRefresh(webAppID: "w"), to: tokens, configuration: harness.configuration)
        #expect(results.map(\.deviceToken) == tokens)
        #expect(results.allSatisfy { $0.sent })
        let records = try harness.records()
        #expect(records.count == 250)
        #expect(Set(records.compactMap { $0["connection"]?.numberValue?.int64 }) == [1])
        #expect(Set(records.compactMap { $0["stream"]?.numberValue?.int64 }).count == 250)
        #expect(harness.metrics.renderPrometheus().contains(#"appnative_apns_pushes_total{kind="approvals",outcome="sent"} 250"#))
        #expect(harness.metrics.renderPrometheus().contains("appnative_apns_streams_open 0"))
    }

    @Test("pushes beyond the server's stream limit wait for a stream; no second connection opens", arguments: [true, false])
    func streamLimit(tls: Bool) async throws {
        let harness = try await Self.harness(tls: tls, maxConcurrentPushes: 64, serverStreamLimit: 4)
        defer { harness.stop() }
        // One push first, so libcurl has read the server's SETTINGS: before that it assumes 100
        // streams, and this fake closes a connection that opens more than it allows.
        let first = try await harness.sender.send(.approvalsRefresh(webAppID: "w"), to: Self.okToken, configuration: harness.configuration)
        #expect(first.sent)
        let tokens = (0..<64).map { String(format: "%064x", 0xdef000 + $0) }
        let results = try await harness.sender.send(.approvalsRefresh(webAppID: "w"), to: tokens, configuration: harness.configuration)
        #expect(results.allSatisfy { $0.sent && $0.attempts == 1 })
        let records = try harness.records()
        #expect(records.count == 65)
        #expect(Set(records.compactMap { $0["connection"]?.numberValue?.int64 }) == [1])
        #expect(harness.metrics.renderPrometheus().contains("appnative_apns_streams_open 0"))
    }

    @Test("after a rejection the server allows one stream, as APNs does; the other pushes wait on the same connection", arguments: [true, false])
    func throttledAfterRejection(tls: Bool) async throws {
        let harness = try await Self.harness(
            tls: tls, maxConcurrentPushes: 48, serverStreamLimit: 8, throttlesAfterRejection: true)
        defer { harness.stop() }
        let first = try await harness.sender.send(.approvalsRefresh(webAppID: "w"), to: Self.okToken, configuration: harness.configuration)
        #expect(first.sent)
        // Every eighth token is a bad one: the limit drops to 1 and comes back again and again.
        let tokens = (0..<48).map { $0 % 8 == 0 ? Self.token("ba0d\($0)") : String(format: "%064x", 0xfee000 + $0) }
        let results = try await harness.sender.send(.approvalsRefresh(webAppID: "w"), to: tokens, configuration: harness.configuration)
        #expect(results.map(\.deviceToken) == tokens)
        for (index, result) in results.enumerated() {
            #expect(result.sent == !index.isMultiple(of: 8), "push \(index): \(String(describing: result.reason))")
            #expect(result.attempts == 1, "push \(index)")
        }
        let records = try harness.records()
        #expect(records.count == 49)
        #expect(Set(records.compactMap { $0["connection"]?.numberValue?.int64 }) == [1])
        // The throttle did happen: some pushes arrived while the server allowed one stream.
        #expect(records.contains { $0["stream_limit"]?.numberValue?.int64 == 1 })
    }

    @Test("a stalled stream times out without a retry; the connection keeps working")
    func stall() async throws {
        let harness = try await Self.harness(tls: false, requestTimeout: .seconds(1))
        defer { harness.stop() }
        let stalled = Self.token("57a11")
        let result = try await harness.sender.send(try .silent(), to: stalled, configuration: harness.configuration)
        #expect(!result.sent)
        #expect(result.status == nil)
        #expect(result.reason == nil)
        #expect(result.transportError?.code == .timeout)
        #expect(result.attempts == 1)
        #expect(try harness.records(token: stalled).count == 1)
        #expect(result.json["error"] == "timeout")
        let after = try await harness.sender.send(try .silent(), to: Self.okToken, configuration: harness.configuration)
        #expect(after.sent)
    }

    @Test("an unreachable server fails after the retries with connection_failed")
    func unreachable() async throws {
        let harness = try await Self.harness(tls: false)
        let configuration = harness.configuration
        harness.fake.stop()
        defer { harness.sender.shutdown() }
        let result = try await harness.sender.send(try .silent(), to: Self.okToken, configuration: configuration)
        #expect(!result.sent)
        #expect(result.transportError?.code == .connectionFailed)
        #expect(result.attempts == 3)
    }

    @Test("an oversized payload is refused before anything is sent")
    func oversized() async throws {
        let harness = try await Self.harness(tls: false)
        defer { harness.stop() }
        let big = try APNsNotification.silent(data: ["blob": .string(String(repeating: "x", count: 5000))])
        let error = await apnsError { try await harness.sender.send(big, to: Self.okToken, configuration: harness.configuration) }
        #expect(error?.code == .payloadTooLarge)
        #expect(try harness.records().isEmpty)
        #expect(harness.sender.cachedConnectionCount == 0)
    }

    @Test("a changed key id is used on the next send; the old client is dropped")
    func rotation() async throws {
        let harness = try await Self.harness(tls: false)
        defer { harness.stop() }
        let first = try await harness.sender.send(try .silent(), to: Self.okToken, configuration: harness.configuration)
        #expect(first.sent)
        let rotated = try testConfiguration(keyID: "ROTATED001", baseURL: harness.fake.baseURL)
        let second = try await harness.sender.send(try .silent(), to: Self.okToken, configuration: rotated)
        // The fake only knows TESTKEY123, so the new kid is refused: proof the new credentials were used.
        #expect(second.reason == .invalidProviderToken)
        #expect(harness.sender.cachedConnectionCount == 1)
        let kids = try harness.records().compactMap { $0["jwt_header"]?["kid"]?.stringValue }
        #expect(kids == [FakeAPNsPeer.keyID, "ROTATED001"])
        let back = try await harness.sender.send(try .silent(), to: Self.okToken, configuration: harness.configuration)
        #expect(back.sent)
        #expect(harness.sender.cachedConnectionCount == 1)
        // Back on the first key: its provider token is reused, not signed again within 20 minutes.
        #expect(harness.sender.providerTokenSignatures(for: harness.configuration) == 1)
        let authorizations = try harness.records().compactMap { $0["headers"]?["authorization"]?.stringValue }
        #expect(authorizations.first == authorizations.last)
        // A different bundle is a separate credential set and is kept alongside.
        let other = try testConfiguration(bundleID: "com.example.other", baseURL: harness.fake.baseURL)
        _ = try await harness.sender.send(try .silent(), to: Self.okToken, configuration: other)
        #expect(harness.sender.cachedConnectionCount == 2)
    }

    @Test("environment credentials and a runtime provider reach the server; the key is never logged")
    func providerAndEnvironment() async throws {
        let fake = try await FakeAPNsPeer.start(tls: true)
        defer { fake.stop() }
        let logs = InMemoryLogSink()
        let environment = [
            "APNS_KEY": fake.keyPEM.replacing("\n", with: "\\n"), "APNS_KEY_ID": FakeAPNsPeer.keyID,
            "APNS_TEAM_ID": FakeAPNsPeer.teamID, "APNS_BUNDLE_ID": FakeAPNsPeer.bundleID,
            "APNS_BASE_URL": fake.baseURL, "APNS_CA_FILE": fake.caFile ?? "",
        ]
        let sender = APNsSender(
            environment: environment, logger: Logger(sink: logs, minimumLevel: .debug), metrics: MetricsRegistry())
        defer { sender.shutdown() }
        #expect(try await sender.send(try .silent(), to: Self.okToken).sent)
        let wrongTeam = try testConfiguration(teamID: "OTHERTEAM1", baseURL: fake.baseURL, caFile: fake.caFile)
        sender.setProvider { wrongTeam }
        let refused = try await sender.send(try .silent(), to: Self.token("ba0d"))
        #expect(refused.reason == .invalidProviderToken)
        let keyBody = String(fake.keyPEM.split(separator: "\n")[1])
        #expect(!logs.all.isEmpty)
        for record in logs.all {
            #expect(!record.message.contains(keyBody))
            #expect(!record.metadata.values.contains { $0.contains(keyBody) || $0.contains("bearer") })
        }
    }
}
