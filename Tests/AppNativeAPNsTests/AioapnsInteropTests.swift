import AppNativeAPNs
import AppNativeCore
import AppNativeJSON
import AppNativeModels
import AppNativeTesting
import Foundation
import Testing

/// Interoperability with the Python reference's transport: `Tests/Peers/aioapns_interop.py` sends
/// the same cases with aioapns 4.0 (payloads from a Python transcription of apns.md §1) to the same
/// fake, and every recorded payload must equal the Swift sender's key by key.
@Suite("aioapns interoperability", .timeLimit(.minutes(2)))
struct AioapnsInteropTests {
    /// The Python with aioapns: `APPNATIVE_INTEROP_PYTHON`, else the venv scripts/install-deps.sh makes.
    static var python: String {
        ProcessInfo.processInfo.environment["APPNATIVE_INTEROP_PYTHON"]
            ?? NSHomeDirectory() + "/.cache/appnative/interop-venv/bin/python"
    }

    /// (kind, Python arguments as JSON, the Swift notification).
    static func cases() throws -> [(String, String, APNsNotification)] {
        let state = LiveActivityState(
            title: "Deploy", subtitle: "api", progress: JSONNumber(0.5), steps: ["build", "ship"], currentStep: 1,
            timerEnd: Timestamp(unixSeconds: 1_790_519_400), icon: "hammer", tint: "#ff0000")
        let stateJSON =
            ##"{"title":"Deploy","subtitle":"api","progress":0.5,"steps":["build","ship"],"currentStep":1,"timerEnd":1790519400.0,"icon":"hammer","tint":"#ff0000"}"##
        let attributes = LiveActivityAttributes(webAppID: "ci", activityID: "run-1", webAppName: "CI", path: "/runs/1")
        let widget: JSONValue = ["id": "k1", "kind": "kpi", "title": "Open", "required": false, "data": ["value": 3, "unit": "€"]]
        return [
            (
                "alert",
                #"{"title":"Hi","body":"There","data":{"webapp_id":"hr","path":"/x","actions":[{"id":"ok","title":"OK"}]},"interruption_level":"time-sensitive"}"#,
                try .alert(
                    title: "Hi", body: "There", data: ["webapp_id": "hr"], path: "/x",
                    actions: [APNsAlertAction(id: "ok", title: "OK")], interruptionLevel: .timeSensitive)
            ),
            ("alert", #"{"title":"Grüße","body":"ünïcode ✓"}"#, try .alert(title: "Grüße", body: "ünïcode ✓")),
            (
                "critical", #"{"webapp_id":"ops","title":"Down","body":"DB","acknowledge_label":"Ack","volume":0.25,"data":{"k":"v"}}"#,
                try .critical(webAppID: "ops", title: "Down", body: "DB", acknowledgeLabel: "Ack", volume: 0.25, data: ["k": "v"])
            ),
            (
                "critical", #"{"webapp_id":"ops","title":"T","body":"B","acknowledge_label":"","volume":2.0}"#,
                try .critical(webAppID: "ops", title: "T", body: "B", acknowledgeLabel: "", volume: 2.0)
            ),
            ("silent", #"{"data":{"sync":true}}"#, try .silent(data: ["sync": true])),
            (
                "widgets", #"{"webapp_id":"w","widgets":[{"id":"k1","kind":"kpi","title":"Open","required":false,"data":{"value":3,"unit":"€"}}]}"#,
                .widgetUpdate(webAppID: "w", widgets: [widget])
            ),
            ("widgets", #"{"webapp_id":"w","widgets":[]}"#, .widgetUpdate(webAppID: "w", widgets: [])),
            ("widgets", #"{"webapp_id":"w"}"#, .widgetUpdate(webAppID: "w", widgets: nil)),
            ("approvals", #"{"webapp_id":"w"}"#, .approvalsRefresh(webAppID: "w")),
            (
                "live_activity_update",
                #"{"timestamp":1790500000,"state":\#(stateJSON),"alert_title":"Half","stale_at":1790600000.9,"priority":5}"#,
                try .liveActivityUpdate(
                    state: state, alertTitle: "Half", staleAt: 1_790_600_000.9, priority: 5, timestamp: 1_790_500_000)
            ),
            (
                "live_activity_end", #"{"timestamp":1790500001,"dismiss_at":1790000100.5}"#,
                try .liveActivityEnd(dismissAt: 1_790_000_100.5, timestamp: 1_790_500_001)
            ),
            (
                "live_activity_start",
                #"{"timestamp":1790500002,"state":\#(stateJSON),"attributes":{"webAppID":"ci","activityID":"run-1","webAppName":"CI","path":"/runs/1"},"stale_at":1790603600}"#,
                try .liveActivityStart(state: state, attributes: attributes, staleAt: 1_790_603_600, timestamp: 1_790_500_002)
            ),
        ]
    }

    @Test("aioapns and APNsSender deliver equal payloads and headers to the fake")
    func samePayloads() async throws {
        #expect(
            FileManager.default.isExecutableFile(atPath: Self.python),
            "no Python with aioapns at \(Self.python): run scripts/install-deps.sh or set APPNATIVE_INTEROP_PYTHON")
        let fake = try await FakeAPNsPeer.start(tls: true)
        defer { fake.stop() }
        let cases = try Self.cases()
        let swiftToken = { (index: Int) in String(format: "aa%062x", index) }
        let pythonToken = { (index: Int) in String(format: "bb%062x", index) }

        let sender = APNsSender(metrics: MetricsRegistry())
        defer { sender.shutdown() }
        let configuration = try testConfiguration(baseURL: fake.baseURL, caFile: fake.caFile)
        for (index, entry) in cases.enumerated() {
            let result = try await sender.send(entry.2, to: swiftToken(index), configuration: configuration)
            #expect(result.sent, "Swift case \(index) \(entry.0)")
        }

        let casesJSON = "[" + cases.enumerated().map { index, entry in
            #"{"token":"\#(pythonToken(index))","kind":"\#(entry.0)","args":\#(entry.1)}"#
        }.joined(separator: ",") + "]"
        let file = NSTemporaryDirectory() + "aioapns-cases-\(UUID().uuidString).json"
        try casesJSON.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let root = ProcessRunner.repositoryRoot()
        let port = String(try #require(fake.baseURL.split(separator: ":").last))
        let output = try await ProcessRunner.run(
            Self.python,
            [
                root + "/Tests/Peers/aioapns_interop.py", "--port", port, "--ca", try #require(fake.caFile),
                "--key-file", root + "/keys/test/apns-test.p8", "--key-id", FakeAPNsPeer.keyID,
                "--team-id", FakeAPNsPeer.teamID, "--bundle-id", FakeAPNsPeer.bundleID, file,
            ])
        #expect(output.status == 0, "\(output.stderr.suffix(1500))")
        #expect(output.stdout.split(separator: "\n").count == cases.count)
        #expect(!output.stdout.contains(#""sent": false"#), "\(output.stdout)")

        let records = try fake.records()
        for (index, entry) in cases.enumerated() {
            let swift = try #require(records.first { $0["token"]?.stringValue == swiftToken(index) }, "Swift \(index)")
            let python = try #require(records.first { $0["token"]?.stringValue == pythonToken(index) }, "Python \(index)")
            let swiftPayload = try #require(swift["payload"]?.objectValue)
            let pythonPayload = try #require(python["payload"]?.objectValue)
            #expect(Set(swiftPayload.keys) == Set(pythonPayload.keys), "case \(index) \(entry.0)")
            for key in pythonPayload.keys {
                #expect(swiftPayload[key] == pythonPayload[key], "case \(index) \(entry.0) key \(key)")
            }
            for header in ["apns-topic", "apns-push-type", "apns-priority"] {
                let swiftValue = swift["headers"]?[header]
                let pythonValue = python["headers"]?[header]
                if entry.0 == "alert" || entry.0 == "critical", header != "apns-topic" {
                    // The reference sends neither; the port sends Apple's recommended alert/10 (apns.md §2).
                    #expect(pythonValue == nil)
                    #expect(swiftValue == (header == "apns-push-type" ? "alert" : "10"))
                } else {
                    #expect(swiftValue == pythonValue, "case \(index) \(entry.0) \(header)")
                }
            }
            #expect(swift["jwt_valid"] == true && python["jwt_valid"] == true)
        }
    }
}
