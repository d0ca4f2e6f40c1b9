import AppNativeJSON
import AppNativeTesting
import Foundation
import Testing

/// Found by Benchmarks/apns.sh (100,000 tokens in concurrent requests of 10,000): a push API
/// request whose pushes take longer than BODY_IDLE_TIMEOUT (60 s by default) is answered
/// `408 Request Timeout`, although its body arrived at once and the pushes are under way. The
/// connection stays in the body-deadline phase while the handler awaits the sender, so the
/// server aborts the exchange; the caller loses every per-token result (and cannot tell which
/// devices were pushed). Here BODY_IDLE_TIMEOUT is 2 s and one token's stream stalls at the fake
/// until the sender's 10 s request timeout: the answer should be 200 with that token not sent.
@Suite("Push API, a batch slower than BODY_IDLE_TIMEOUT", .timeLimit(.minutes(1)))
struct PushAPISlowBatchTests {
    @Test("answers the per-token results, not 408, when sending outlasts BODY_IDLE_TIMEOUT")
    func slowBatch() async throws {
        let fake = try await FakeAPNsPeer.start(tls: false)
        defer { fake.stop() }
        let key = "slow-batch-key-0123456789abcdef"
        let gateway = try await GatewayProcess.start(
            environment: ProxyFixture.publicEnvironment([
                "UPSTREAM_URL": "http://127.0.0.1:9", "EVENT_LOOPS": "1", "BODY_IDLE_TIMEOUT": "2", "PUSH_API_KEYS": key,
                "APNS_KEY": fake.keyPEM.replacing("\n", with: "\\n"), "APNS_KEY_ID": FakeAPNsPeer.keyID,
                "APNS_TEAM_ID": FakeAPNsPeer.teamID, "APNS_BUNDLE_ID": FakeAPNsPeer.bundleID, "APNS_BASE_URL": fake.baseURL,
            ]))
        defer { gateway.stop() }
        let stalled = "57a11" + String(repeating: "0", count: 59)
        let ok = String(repeating: "ab", count: 32)
        let json = #"{"tokens":["\#(ok)","\#(stalled)"],"title":"T","body":"B"}"#
        let port = gateway.adminPort
        let response = try await blocking {
            let client = try RawHTTPClient(port: port, timeout: .seconds(40))
            try client.send(
                "POST /push/alert HTTP/1.1\r\nHost: admin\r\nContent-Type: application/json\r\n"
                    + "Authorization: Bearer \(key)\r\nContent-Length: \(json.utf8.count)\r\n\r\n" + json)
            return try client.readResponse(to: "POST")
        }
        #expect(response.status == 200, "\(response.status): \(String(decoding: response.body, as: UTF8.self))")
        let body = (try? JSONParser().parse(response.body).objectValue) ?? [:]
        #expect(body["sent"] == 1)
        #expect(body["not_sent"] == 1)
    }
}
