@testable import AppNativeAPNs
import AppNativeJSON
import AppNativeModels
import Testing

/// Payloads of every kind compared member by member with contract/apns.md §1.
@Suite("Payload builders (contract/apns.md §1)")
struct PayloadTests {
    @Test("alert: title, body, default sound, no interruption level")
    func plainAlert() throws {
        let notification = try APNsNotification.alert(title: "T", body: "B")
        #expect(notification.payload == (try json(#"{"aps":{"alert":{"title":"T","body":"B"},"sound":"default"}}"#)))
        #expect(notification.kind == .alert)
    }

    @Test("alert: passive/active/time-sensitive set the key, sound stays default", arguments: [
        APNsInterruptionLevel.passive, .active, .timeSensitive,
    ])
    func interruptionLevels(level: APNsInterruptionLevel) throws {
        let notification = try APNsNotification.alert(title: "T", body: "B", interruptionLevel: level)
        let expected = try json(
            #"{"aps":{"alert":{"title":"T","body":"B"},"sound":"default","interruption-level":"\#(level.rawValue)"}}"#)
        #expect(notification.payload == expected)
    }

    @Test("alert at critical level: critical sound dictionary at volume 1.0")
    func criticalLevelAlert() throws {
        let notification = try APNsNotification.alert(title: "T", body: "B", interruptionLevel: .critical)
        let expected = try json(
            #"{"aps":{"alert":{"title":"T","body":"B"},"sound":{"critical":1,"name":"default","volume":1.0},"interruption-level":"critical"}}"#
        )
        #expect(notification.payload == expected)
    }

    @Test("alert: data keys, path and actions at the top level; empty data merges nothing")
    func alertData() throws {
        let withData = try APNsNotification.alert(
            title: "T", body: "B", data: ["webapp_id": "hr", "extra": 3], path: "/leave/42",
            actions: [APNsAlertAction(id: "approve", title: "Approve"), APNsAlertAction(id: "reject", title: "Reject")])
        let expected = try json(
            #"""
            {"aps":{"alert":{"title":"T","body":"B"},"sound":"default"},"webapp_id":"hr","extra":3,"path":"/leave/42",
             "actions":[{"id":"approve","title":"Approve"},{"id":"reject","title":"Reject"}]}
            """#)
        #expect(withData.payload == expected)
        let empty = try APNsNotification.alert(title: "T", body: "B", data: [:])
        #expect(empty.payload.keys == ["aps"])
    }

    @Test("an `aps` key in data is refused, never allowed to replace aps")
    func apsTrap() {
        #expect(apnsError { try APNsNotification.alert(title: "T", body: "B", data: ["aps": "x"]) }?.code == .invalidPayload)
        #expect(apnsError { try APNsNotification.silent(data: ["aps": [:]]) }?.code == .invalidPayload)
        #expect(
            apnsError { try APNsNotification.critical(webAppID: "w", title: "T", body: "B", data: ["aps": 1]) }?.code
                == .invalidPayload)
    }

    @Test("critical: webapp_id and ack_label override data; label default Got it")
    func critical() throws {
        let notification = try APNsNotification.critical(
            webAppID: "ops", title: "Down", body: "DB", data: ["webapp_id": "other", "ack_label": "x", "k": "v"])
        let expected = try json(
            #"""
            {"aps":{"alert":{"title":"Down","body":"DB"},"sound":{"critical":1,"name":"default","volume":1.0},
             "interruption-level":"critical"},"k":"v","webapp_id":"ops","ack_label":"Got it"}
            """#)
        #expect(notification.payload == expected)
        #expect(notification.kind == .critical)
    }

    @Test("critical: nil or empty label sends no ack_label")
    func criticalWithoutLabel() throws {
        for label in [nil, ""] as [String?] {
            let notification = try APNsNotification.critical(webAppID: "w", title: "T", body: "B", acknowledgeLabel: label)
            #expect(!notification.payload.contains("ack_label"))
            #expect(notification.payload["webapp_id"] == "w")
        }
    }

    @Test("critical volume is clamped to 0...1 and NaN becomes 1.0", arguments: [
        (2.0, "1.0"), (-1.0, "0.0"), (0.25, "0.25"), (Double.nan, "1.0"), (Double.infinity, "1.0"),
    ])
    func volumeClamp(volume: Double, expected: String) throws {
        let notification = try APNsNotification.critical(webAppID: "w", title: "T", body: "B", volume: volume)
        let sound = try #require(notification.payload["aps"]?["sound"]?.objectValue)
        #expect(sound["volume"]?.numberValue?.text == expected)
    }

    @Test("silent: content-available plus data")
    func silent() throws {
        #expect(try APNsNotification.silent().payload == (try json(#"{"aps":{"content-available":1}}"#)))
        let withData = try APNsNotification.silent(data: ["sync": true])
        #expect(withData.payload == (try json(#"{"aps":{"content-available":1},"sync":true}"#)))
    }

    @Test("widgets: nil asks for a refresh")
    func widgetsRefresh() throws {
        let notification = APNsNotification.widgetUpdate(webAppID: "W", widgets: nil)
        #expect(
            notification.payload == (try json(#"{"aps":{"content-available":1},"webapp_id":"W","widgets_refresh":true}"#)))
    }

    @Test("widgets: an empty list is sent inline (no widgets now), not as a refresh")
    func widgetsEmpty() throws {
        let notification = APNsNotification.widgetUpdate(webAppID: "W", widgets: [])
        #expect(notification.payload == (try json(#"{"aps":{"content-available":1},"webapp_id":"W","widgets":[]}"#)))
    }

    /// A widget whose text makes the compact inline payload exactly `total` bytes.
    private func widgets(totalBytes total: Int, character: String = "a") -> [JSONValue] {
        let base = JSONSerializer.serialize(
            .object(["aps": .object(["content-available": 1]), "webapp_id": "W", "widgets": [["id": "x", "markdown": ""]]]))
        let fill = (total - base.count) / character.utf8.count
        return [["id": "x", "markdown": .string(String(repeating: character, count: fill))]]
    }

    @Test("widgets: inline up to exactly 3500 compact UTF-8 bytes, refresh at 3501")
    func widgetsBoundary() throws {
        let fits = widgets(totalBytes: 3500)
        let inline = APNsNotification.widgetUpdate(webAppID: "W", widgets: fits)
        #expect(JSONSerializer.serialize(.object(inline.payload)).count == 3500)
        #expect(inline.payload["widgets"] == .array(fits))
        #expect(!inline.payload.contains("widgets_refresh"))

        let over = APNsNotification.widgetUpdate(webAppID: "W", widgets: widgets(totalBytes: 3501))
        #expect(!over.payload.contains("widgets"))
        #expect(over.payload["widgets_refresh"] == true)
    }

    @Test("widgets: the inline size counts UTF-8 bytes of unescaped non-ASCII text")
    func widgetsUTF8() throws {
        // 1750 two-byte characters: under 3500 characters but over 3500 bytes.
        let text: JSONValue = .string(String(repeating: "é", count: 1750))
        let notification = APNsNotification.widgetUpdate(webAppID: "W", widgets: [["id": "x", "markdown": text]])
        #expect(notification.payload["widgets_refresh"] == true)
    }

    @Test("approvals refresh")
    func approvals() throws {
        let notification = APNsNotification.approvalsRefresh(webAppID: "W")
        #expect(
            notification.payload == (try json(#"{"aps":{"content-available":1},"webapp_id":"W","approvals_refresh":true}"#)))
    }

    private func state() throws -> LiveActivityState {
        LiveActivityState(
            title: "Deploy", subtitle: "api", status: "2/3", progress: JSONNumber(0.5), steps: ["build", "test", "ship"],
            currentStep: 1, timerEnd: Timestamp(unixSeconds: 1_790_519_400), icon: "hammer", tint: "#ff0000")
    }

    private let stateJSON =
        ##"{"title":"Deploy","subtitle":"api","status":"2/3","progress":0.5,"steps":["build","test","ship"],"currentStep":1,"timerEnd":1790519400.0,"icon":"hammer","tint":"#ff0000"}"##

    @Test("Live Activity update: timestamp, event, content-state, alert, stale-date (truncated)")
    func liveActivityUpdate() throws {
        let notification = try APNsNotification.liveActivityUpdate(
            state: try state(), alertTitle: "Halfway", staleAt: 1_790_600_000.9, timestamp: 1_790_500_000, now: 5)
        let expected = try json(
            #"{"aps":{"timestamp":1790500000,"event":"update","content-state":\#(stateJSON),"alert":{"title":"Halfway","body":""},"stale-date":1790600000}}"#
        )
        #expect(notification.payload == expected)
        #expect(notification.priority == 10)
    }

    @Test("Live Activity update: no alert without a title; missing or zero timestamp is now (truncated)")
    func liveActivityTimestamp() throws {
        for timestamp in [nil, 0] as [Int64?] {
            let notification = try APNsNotification.liveActivityUpdate(
                state: LiveActivityState(title: "A"), alertTitle: "", alertBody: "ignored", timestamp: timestamp,
                now: 1_790_000_000.75)
            let expected = try json(
                #"{"aps":{"timestamp":1790000000,"event":"update","content-state":{"title":"A"}}}"#)
            #expect(notification.payload == expected)
        }
    }

    @Test("Live Activity update priority 5 or 10 only")
    func liveActivityPriority() throws {
        #expect(try APNsNotification.liveActivityUpdate(state: try state(), priority: 5, now: 1).priority == 5)
        #expect(
            apnsError { try APNsNotification.liveActivityUpdate(state: try state(), priority: 7, now: 1) }?.code
                == .invalidPayload)
    }

    @Test("Live Activity end: dismissal-date, optional state, no alert and no stale date")
    func liveActivityEnd() throws {
        let bare = try APNsNotification.liveActivityEnd(dismissAt: 1_790_000_100.5, timestamp: 1_790_000_000, now: 0)
        #expect(
            bare.payload == (try json(#"{"aps":{"timestamp":1790000000,"event":"end","dismissal-date":1790000100}}"#)))
        let withState = try APNsNotification.liveActivityEnd(state: LiveActivityState(title: "Done"), now: 7)
        #expect(
            withState.payload == (try json(#"{"aps":{"timestamp":7,"event":"end","content-state":{"title":"Done"}}}"#)))
    }

    @Test("update without state is an error (build_live_activity_message)")
    func updateNeedsState() throws {
        let error = apnsError {
            try APNsNotification.liveActivityMessage(
                event: "update", state: nil, alertTitle: nil, alertBody: nil, staleAt: nil, dismissAt: nil,
                timestamp: 1, now: 1)
        }
        #expect(error?.code == .invalidPayload)
    }

    @Test("Live Activity start: attributes type and attributes; alert from the state when no title")
    func liveActivityStart() throws {
        let attributes = LiveActivityAttributes(
            webAppID: "ci", activityID: "run-7", webAppName: "CI", icon: "bolt", tint: "#00ff00", path: "/runs/7")
        let fromState = try APNsNotification.liveActivityStart(
            state: LiveActivityState(title: "Build", subtitle: "main"), attributes: attributes, staleAt: 1_790_003_600,
            timestamp: 1_790_000_000)
        let expected = try json(
            ##"""
            {"aps":{"timestamp":1790000000,"event":"start","content-state":{"title":"Build","subtitle":"main"},
             "attributes-type":"WebAppActivityAttributes",
             "attributes":{"webAppID":"ci","activityID":"run-7","webAppName":"CI","icon":"bolt","tint":"#00ff00","path":"/runs/7"},
             "alert":{"title":"Build","body":"main"},"stale-date":1790003600}}
            """##)
        #expect(fromState.payload == expected)

        let minimal = LiveActivityAttributes(webAppID: "ci", activityID: "a", webAppName: "CI")
        let titled = try APNsNotification.liveActivityStart(
            state: LiveActivityState(title: "Build"), attributes: minimal, alertTitle: "Started", timestamp: 3)
        #expect(titled.payload["aps"]?["alert"] == .object(["title": "Started", "body": ""]))
        #expect(titled.payload["aps"]?["attributes"] == .object(["webAppID": "ci", "activityID": "a", "webAppName": "CI"]))
        let noSubtitle = try APNsNotification.liveActivityStart(
            state: LiveActivityState(title: "Build"), attributes: minimal, timestamp: 3)
        #expect(noSubtitle.payload["aps"]?["alert"] == .object(["title": "Build", "body": ""]))
    }

    /// States that break a rule of contract/models.md §5; the memberwise initialiser does not check them.
    static let invalidStates: [LiveActivityState] = [
        LiveActivityState(title: ""),
        LiveActivityState(title: "t", progress: JSONNumber(1.5)),
        LiveActivityState(title: "t", progress: JSONNumber(-0.1)),
        LiveActivityState(title: "t", steps: ["1", "2", "3", "4", "5", "6"]),
        LiveActivityState(title: "t", currentStep: -1),
        LiveActivityState(title: "t", steps: ["a"], currentStep: 1),
    ]

    @Test("every Live Activity builder refuses a state that breaks contract/models.md §5", arguments: invalidStates)
    func invalidStateRefused(state: LiveActivityState) {
        let attributes = LiveActivityAttributes(webAppID: "w", activityID: "a", webAppName: "n")
        #expect(apnsError { try APNsNotification.liveActivityUpdate(state: state, now: 1) }?.code == .invalidPayload)
        #expect(apnsError { try APNsNotification.liveActivityEnd(state: state, now: 1) }?.code == .invalidPayload)
        #expect(
            apnsError { try APNsNotification.liveActivityStart(state: state, attributes: attributes, now: 1) }?.code
                == .invalidPayload)
    }

    @Test("Live Activity validation (contract/models.md §5): empty activityID refused, empty steps allow any currentStep")
    func stateValidation() {
        let state = LiveActivityState(title: "t", steps: [], currentStep: 3)
        #expect(apnsError { try APNsNotification.liveActivityUpdate(state: state, now: 1) } == nil)
        let attributes = LiveActivityAttributes(webAppID: "w", activityID: "", webAppName: "n")
        let error = apnsError { try APNsNotification.liveActivityStart(state: state, attributes: attributes, now: 1) }
        #expect(error?.code == .invalidPayload)
        #expect(error?.reason.hasPrefix("attributes") == true)
        #expect(apnsError { try APNsNotification.liveActivityEnd(dismissAt: .infinity, now: 1) }?.code == .invalidPayload)
    }
}
