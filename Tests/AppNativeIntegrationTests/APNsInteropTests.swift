import AppNativeAPNs
import AppNativeJSON
import AppNativeModels
import AppNativeTesting
import Foundation
import Testing

/// Interoperability with the Python reference's own APNs transport (`aioapns` 4.0, PyPI,
/// installed by scripts/install-python-tools.sh): the same notifications are sent once by
/// `APNsSender` and once by `Tests/Peers/aioapns_send.py` (payloads built as the reference's send
/// functions build them, contract/apns.md §1–2), each to its own fake APNs server over TLS, and the
/// recorded payloads are compared key by key, with the headers the contract names.
@Suite("APNs interoperability with aioapns", .timeLimit(.minutes(3)))
struct APNsInteropTests {
    /// One notification: how the reference's script gets it (`kind` and `args` as its send
    /// function's parameters) and how our builders make it.
    struct Case: Sendable {
        var name: String
        var kind: String
        var args: JSONObject
        var collapseID: String? = nil
        var expiration: Int64? = nil
        var build: @Sendable () throws -> APNsNotification
    }

    /// Headers contract/apns.md §2 names; every other header (`apns-id`, `authorization`, `host`,
    /// `:authority`, `content-length`) is transport detail and not compared.
    static let comparedHeaders = ["apns-push-type", "apns-priority", "apns-topic", "apns-expiration", "apns-collapse-id"]

    static func object(_ text: String) throws -> JSONObject {
        try #require(try JSONParser().parse(text).objectValue)
    }

    static func cases() throws -> [Case] {
        let fullState = try object(
            ##"{"title":"Deploy","subtitle":"eu-west","status":"running","progress":0.25,"steps":["build","test","ship"],"currentStep":1,"timerEnd":1790000123.5,"icon":"hammer","tint":"#FF8800"}"##)
        let smallState = try object(#"{"title":"Build","subtitle":"main"}"#)
        let attributes = try object(
            #"{"webAppID":"ci","activityID":"run-7","webAppName":"CI","icon":"gear","tint":"blue","path":"/runs/7"}"#)
        let widgets = try #require(
            try JSONParser().parse(
                #"[{"id":"open","kind":"counter","title":"Open tickets","value":12,"trend":{"direction":"up","delta":3}},{"id":"next","kind":"list","title":"Next","items":["a","b"],"badge":null}]"#
            ).arrayValue)
        let bigWidgets: [JSONValue] = (0..<40).map { index in
            .object(["id": .string("w\(index)"), "kind": "text", "title": .string(String(repeating: "x", count: 90))])
        }
        let actions = [APNsAlertAction(id: "approve", title: "Approve"), APNsAlertAction(id: "deny", title: "Deny")]
        let actionsJSON: JSONValue = [["id": "approve", "title": "Approve"], ["id": "deny", "title": "Deny"]]
        let data = try object(#"{"webapp_id":"hr","ticket":42,"nested":{"list":[1,"two",null,true],"ratio":0.5}}"#)
        var dataWithLink = data
        dataWithLink["path"] = "/tickets/42"
        dataWithLink["actions"] = actionsJSON
        let criticalData = try object(#"{"incident":"I-7","webapp_id":"overridden","ack_label":"overridden"}"#)

        return [
            Case(name: "alert, title and body only", kind: "alert", args: ["title": "Hello", "body": "World"]) {
                try .alert(title: "Hello", body: "World")
            },
            Case(
                name: "alert with data, path, actions, time-sensitive, collapse id, expiration", kind: "alert",
                args: [
                    "title": "Ticket 42", "body": "Needs you", "data": .object(dataWithLink),
                    "interruption_level": "time-sensitive",
                ], collapseID: "ticket-42", expiration: 1_900_000_000
            ) {
                var notification = try APNsNotification.alert(
                    title: "Ticket 42", body: "Needs you", data: data, path: "/tickets/42", actions: actions,
                    interruptionLevel: .timeSensitive)
                notification.collapseID = "ticket-42"
                notification.expiration = 1_900_000_000
                return notification
            },
            Case(
                name: "alert, passive, non-ASCII text", kind: "alert",
                args: ["title": "Grüße ✓", "body": "日本語 \"quoted\" \\ / \u{1F600}", "interruption_level": "passive"]
            ) {
                try .alert(title: "Grüße ✓", body: "日本語 \"quoted\" \\ / \u{1F600}", interruptionLevel: .passive)
            },
            Case(name: "alert at interruption level critical", kind: "alert", args: ["title": "T", "body": "B", "interruption_level": "critical"]) {
                try .alert(title: "T", body: "B", interruptionLevel: .critical)
            },
            Case(
                name: "critical alert, volume 3 clamped, label and data overridden", kind: "critical",
                args: [
                    "webapp_id": "ops", "title": "Disk full", "body": "db-1", "acknowledge_label": "Acknowledge",
                    "volume": 3, "data": .object(criticalData),
                ]
            ) {
                try .critical(
                    webAppID: "ops", title: "Disk full", body: "db-1", acknowledgeLabel: "Acknowledge", volume: 3,
                    data: criticalData)
            },
            Case(
                name: "critical alert, empty label, volume -1 clamped", kind: "critical",
                args: ["webapp_id": "ops", "title": "T", "body": "B", "acknowledge_label": "", "volume": -1]
            ) {
                try .critical(webAppID: "ops", title: "T", body: "B", acknowledgeLabel: "", volume: -1)
            },
            Case(name: "silent, no data", kind: "silent", args: [:]) { try .silent() },
            Case(name: "silent with data", kind: "silent", args: ["data": .object(data)]) { try .silent(data: data) },
            Case(name: "widgets: refresh flag (no list)", kind: "widgets", args: ["webapp_id": "w"]) {
                .widgetUpdate(webAppID: "w", widgets: nil)
            },
            Case(name: "widgets: empty list inline", kind: "widgets", args: ["webapp_id": "w", "widgets": []]) {
                .widgetUpdate(webAppID: "w", widgets: [])
            },
            Case(name: "widgets: list inline", kind: "widgets", args: ["webapp_id": "w", "widgets": .array(widgets)]) {
                .widgetUpdate(webAppID: "w", widgets: widgets)
            },
            Case(name: "widgets: list over 3500 bytes becomes the refresh flag", kind: "widgets", args: ["webapp_id": "w", "widgets": .array(bigWidgets)]) {
                .widgetUpdate(webAppID: "w", widgets: bigWidgets)
            },
            Case(name: "approvals refresh", kind: "approvals", args: ["webapp_id": "hr"]) {
                .approvalsRefresh(webAppID: "hr")
            },
            Case(
                name: "live activity start with alert and stale date", kind: "live_start",
                args: [
                    "state": .object(fullState), "attributes": .object(attributes), "alert_title": "Deploy started",
                    "alert_body": "eu-west", "stale_at": 1_790_000_600.9,
                ]
            ) {
                try .liveActivityStart(
                    state: try LiveActivityState(json: .object(fullState)), attributes: try LiveActivityAttributes(json: .object(attributes)),
                    alertTitle: "Deploy started", alertBody: "eu-west", staleAt: 1_790_000_600.9)
            },
            Case(
                name: "live activity start, alert from the state", kind: "live_start",
                args: ["state": .object(smallState), "attributes": .object(attributes)]
            ) {
                try .liveActivityStart(state: try LiveActivityState(json: .object(smallState)), attributes: try LiveActivityAttributes(json: .object(attributes)))
            },
            Case(
                name: "live activity update with alert (no body), stale date, priority 5", kind: "live_update",
                args: ["state": .object(fullState), "alert_title": "Step 2", "stale_at": 1_790_000_000.9, "priority": 5]
            ) {
                try .liveActivityUpdate(
                    state: try LiveActivityState(json: .object(fullState)), alertTitle: "Step 2", staleAt: 1_790_000_000.9, priority: 5)
            },
            Case(name: "live activity update, priority 10", kind: "live_update", args: ["state": .object(smallState)]) {
                try .liveActivityUpdate(state: try LiveActivityState(json: .object(smallState)))
            },
            Case(
                name: "live activity end with state and dismissal date", kind: "live_end",
                args: ["state": .object(smallState), "dismiss_at": 1_790_000_000]
            ) {
                try .liveActivityEnd(state: try LiveActivityState(json: .object(smallState)), dismissAt: 1_790_000_000)
            },
            Case(name: "live activity end, bare", kind: "live_end", args: [:]) { try .liveActivityEnd() },
        ]
    }

    /// A distinct token per case; `cafe` starts none of the fake's scripted failure prefixes.
    static func token(_ index: Int) -> String {
        "cafe" + String(repeating: "0", count: 56) + String(format: "%04x", index)
    }

    @Test("payloads and contract headers equal key by key to what aioapns sends")
    func sameAsAioapns() async throws {
        let root = ProcessRunner.repositoryRoot()
        let venvPython = root + "/.build/python-tools/bin/python"
        try #require(FileManager.default.isExecutableFile(atPath: venvPython), "run scripts/install-python-tools.sh (make test does)")
        let cases = try Self.cases()

        // Ours: APNsSender with explicit credentials, one push per case, in order.
        let oursFake = try await FakeAPNsPeer.start(tls: true)
        defer { oursFake.stop() }
        let configuration = try APNsConfiguration(
            key: oursFake.keyPEM, keyID: FakeAPNsPeer.keyID, teamID: FakeAPNsPeer.teamID, bundleID: FakeAPNsPeer.bundleID,
            baseURL: oursFake.baseURL, caFile: oursFake.caFile)
        let sender = APNsSender()
        defer { sender.shutdown() }
        for (index, item) in cases.enumerated() {
            let result = try await sender.send(try item.build(), to: Self.token(index), configuration: configuration)
            #expect(result.sent, "\(item.name): \(result.json)")
        }

        // aioapns: the same cases through the reference's transport.
        let theirsFake = try await FakeAPNsPeer.start(tls: true)
        defer { theirsFake.stop() }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("aioapns-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let caseList: [JSONValue] = cases.enumerated().map { index, item in
            var entry: JSONObject = ["kind": .string(item.kind), "token": .string(Self.token(index)), "args": .object(item.args)]
            if let collapseID = item.collapseID { entry["collapse_id"] = .string(collapseID) }
            if let expiration = item.expiration { entry["expiration"] = .number(JSONNumber(expiration)) }
            return .object(entry)
        }
        try JSONSerializer.string(.array(caseList)).write(toFile: scratch, atomically: true, encoding: .utf8)
        let port = try #require(theirsFake.baseURL.split(separator: ":").last.map(String.init))
        let output = try await ProcessRunner.run(
            venvPython,
            [
                root + "/Tests/Peers/aioapns_send.py", "send", "--port", port, "--ca-file", try #require(theirsFake.caFile),
                "--key-file", root + "/keys/test/apns-test.p8", "--key-id", FakeAPNsPeer.keyID, "--team-id",
                FakeAPNsPeer.teamID, "--bundle-id", FakeAPNsPeer.bundleID, "--cases", scratch,
            ])
        try #require(output.status == 0, "aioapns_send.py failed:\n\(output.stderr.suffix(3000))")
        let answers = output.stdout.split(separator: "\n")
        #expect(answers.count == cases.count)
        for line in answers { #expect(line.contains(#""status": 200"#), "aioapns: \(line)") }

        let ours = try Self.recordsByToken(oursFake.records())
        let theirs = try Self.recordsByToken(theirsFake.records())
        for (index, item) in cases.enumerated() {
            let token = Self.token(index)
            let mine = try #require(ours[token], "\(item.name): APNsSender's push not recorded")
            let reference = try #require(theirs[token], "\(item.name): aioapns's push not recorded")
            #expect(mine["jwt_valid"] == true && reference["jwt_valid"] == true, "\(item.name): provider tokens")
            let differences =
                Self.payloadDifferences(mine["payload"], reference["payload"], kind: item.kind)
                + Self.headerDifferences(mine["headers"]?.objectValue ?? [:], reference["headers"]?.objectValue ?? [:], kind: item.kind)
            #expect(differences.isEmpty, "\(item.name) (ours vs aioapns):\n\(differences.joined(separator: "\n"))")
        }
    }

    static func recordsByToken(_ records: [JSONObject]) throws -> [String: JSONObject] {
        var byToken: [String: JSONObject] = [:]
        for record in records {
            let token = try #require(record["token"]?.stringValue)
            #expect(byToken[token] == nil, "token \(token) recorded twice (a retry?)")
            byToken[token] = record
        }
        return byToken
    }

    /// Every difference between the two recorded payloads, by JSON path.
    static func payloadDifferences(_ ours: JSONValue?, _ theirs: JSONValue?, kind: String) -> [String] {
        var ours = ours?.objectValue ?? [:]
        var theirs = theirs?.objectValue ?? [:]
        if kind.hasPrefix("live_") {
            // Excluded: `aps.timestamp` is "now" on each side when the send function is not given
            // one (contract/apns.md §1.6: send_live_activity_* take no timestamp). Both must still be
            // integer Unix seconds, and close to each other.
            var oursAPS = ours["aps"]?.objectValue ?? [:]
            var theirsAPS = theirs["aps"]?.objectValue ?? [:]
            let mine = oursAPS["timestamp"]?.numberValue, reference = theirsAPS["timestamp"]?.numberValue
            guard let a = mine.flatMap({ $0.isInteger ? $0.int64 : nil }), let b = reference.flatMap({ $0.isInteger ? $0.int64 : nil }),
                abs(a - b) <= 300
            else {
                return ["$.aps.timestamp: ours \(mine?.text ?? "missing") vs aioapns \(reference?.text ?? "missing")"]
            }
            oursAPS["timestamp"] = nil
            theirsAPS["timestamp"] = nil
            ours["aps"] = .object(oursAPS)
            theirs["aps"] = .object(theirsAPS)
        }
        return differences(.object(ours), .object(theirs), at: "$")
    }

    static func differences(_ ours: JSONValue?, _ theirs: JSONValue?, at path: String) -> [String] {
        switch (ours, theirs) {
        case (nil, nil):
            return []
        case (.object(let left)?, .object(let right)?):
            let keys = Set(left.keys).union(right.keys).sorted()
            return keys.flatMap { differences(left[$0], right[$0], at: path + "." + $0) }
        case (.array(let left)?, .array(let right)?) where left.count == right.count:
            return zip(left, right).enumerated().flatMap { index, pair in differences(pair.0, pair.1, at: "\(path)[\(index)]") }
        case (.number(let left)?, .number(let right)?):
            // Numbers compare by value: the fake records what Python's json parsed, and 1 and 1.0
            // are the same JSON number (RFC 8259 §6) to the app's decoder.
            return left.double == right.double ? [] : ["\(path): ours \(left.text) vs aioapns \(right.text)"]
        default:
            if ours == theirs { return [] }
            return ["\(path): ours \(describe(ours)) vs aioapns \(describe(theirs))"]
        }
    }

    static func describe(_ value: JSONValue?) -> String {
        value.map { JSONSerializer.string($0) } ?? "missing"
    }

    /// Differences in the headers contract/apns.md §2 names.
    static func headerDifferences(_ ours: JSONObject, _ theirs: JSONObject, kind: String) -> [String] {
        var found: [String] = []
        for name in comparedHeaders {
            let mine = ours[name]?.stringValue, reference = theirs[name]?.stringValue
            if mine == reference { continue }
            switch name {
            case "apns-push-type" where (kind == "alert" || kind == "critical") && reference == nil && mine == "alert":
                // Excluded: the reference sends no push type for alerts; contract/apns.md §2 recommends the
                // port send `apns-push-type: alert` (Apple asks for it); the payload is unchanged.
                continue
            case "apns-priority" where (kind == "alert" || kind == "critical") && reference == nil && mine == "10":
                // Excluded: the same recommendation sends priority 10, which is APNs's default when absent.
                continue
            case "apns-expiration":
                // Excluded within a minute: aioapns takes a time to live and sends now + ttl; the
                // script derives the ttl from the same absolute expiration, and on a loaded machine
                // seconds can pass between the two readings of the clock (the connection is set up
                // in between). A unit error (milliseconds, a relative value) is still far off.
                if let mine, let reference, let a = Int64(mine), let b = Int64(reference), abs(a - b) <= 60 { continue }
            default:
                break
            }
            found.append("headers.\(name): ours \(mine ?? "missing") vs aioapns \(reference ?? "missing")")
        }
        return found
    }
}
