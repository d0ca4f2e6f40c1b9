import AppNativeAPNs
import AppNativeClient
import AppNativeJSON
import AppNativeModels
import Testing

/// Request headers per kind (contract/apns.md §2) and the size limit.
@Suite("Headers and limits (contract/apns.md §2)")
struct HeaderTests {
    static let id = "0b7c2c2e-6d3a-4b8e-9f00-1234567890ab"

    private func fields(_ notification: APNsNotification) throws -> [String: String] {
        let headers = try notification.headers(bundleID: "com.example.app", apnsID: Self.id)
        #expect(Set(headers.map { $0.name.lowercased() }).count == headers.count, "no duplicate headers")
        return Dictionary(uniqueKeysWithValues: headers.map { ($0.name, $0.value) })
    }

    @Test("every kind: push type, priority and topic")
    func perKind() throws {
        let state = LiveActivityState(title: "t")
        let attributes = LiveActivityAttributes(webAppID: "w", activityID: "a", webAppName: "n")
        let cases: [(APNsNotification, String, String, String)] = [
            (try .alert(title: "t", body: "b"), "alert", "10", "com.example.app"),
            (try .critical(webAppID: "w", title: "t", body: "b"), "alert", "10", "com.example.app"),
            (try .silent(), "background", "5", "com.example.app"),
            (.widgetUpdate(webAppID: "w", widgets: nil), "background", "5", "com.example.app"),
            (.approvalsRefresh(webAppID: "w"), "background", "5", "com.example.app"),
            (
                try .liveActivityUpdate(state: state, now: 1), "liveactivity", "10",
                "com.example.app.push-type.liveactivity"
            ),
            (
                try .liveActivityUpdate(state: state, priority: 5, now: 1), "liveactivity", "5",
                "com.example.app.push-type.liveactivity"
            ),
            (try .liveActivityEnd(now: 1), "liveactivity", "10", "com.example.app.push-type.liveactivity"),
            (
                try .liveActivityStart(state: state, attributes: attributes, now: 1), "liveactivity", "10",
                "com.example.app.push-type.liveactivity"
            ),
        ]
        for (notification, pushType, priority, topic) in cases {
            let headers = try fields(notification)
            #expect(headers == ["apns-id": Self.id, "apns-push-type": pushType, "apns-priority": priority, "apns-topic": topic])
        }
    }

    @Test("apns-expiration and apns-collapse-id only when set")
    func optionalHeaders() throws {
        var notification = try APNsNotification.alert(title: "t", body: "b")
        notification.expiration = 1_790_000_000
        notification.collapseID = "score-42"
        let headers = try fields(notification)
        #expect(headers["apns-expiration"] == "1790000000")
        #expect(headers["apns-collapse-id"] == "score-42")

        notification.expiration = 0
        #expect(try fields(notification)["apns-expiration"] == "0")
    }

    @Test("a collapse id over 64 bytes, empty, or with control characters is refused")
    func collapseLimits() throws {
        var notification = try APNsNotification.silent()
        notification.collapseID = String(repeating: "c", count: 64)
        #expect(try fields(notification)["apns-collapse-id"]?.count == 64)
        for bad in [String(repeating: "c", count: 65), "", "a\nb"] {
            notification.collapseID = bad
            #expect(apnsError { try notification.headers(bundleID: "b", apnsID: Self.id) }?.code == .invalidPayload)
        }
        notification.collapseID = nil
        notification.expiration = -1
        #expect(apnsError { try notification.headers(bundleID: "b", apnsID: Self.id) }?.code == .invalidPayload)
    }

    @Test("a payload over 4096 bytes is refused before sending; exactly 4096 passes")
    func sizeLimit() throws {
        let base = JSONSerializer.serialize(.object(try APNsNotification.silent(data: ["f": ""]).payload)).count
        let exact = try APNsNotification.silent(data: ["f": .string(String(repeating: "x", count: 4096 - base))])
        #expect(try exact.body().count == 4096)
        let over = try APNsNotification.silent(data: ["f": .string(String(repeating: "x", count: 4097 - base))])
        let error = apnsError { try over.body() }
        #expect(error?.code == .payloadTooLarge)
        #expect(error?.reason.contains("4097 bytes") == true)
    }

    @Test("the body is compact UTF-8 JSON")
    func compactBody() throws {
        let body = try APNsNotification.alert(title: "Grüße", body: "b").body()
        #expect(String(decoding: body, as: UTF8.self) == #"{"aps":{"alert":{"title":"Grüße","body":"b"},"sound":"default"}}"#)
    }
}
