import AppNativeJSON
import AppNativeModels
import Testing

/// Request bodies of `contract/routes.md` §2: snake_case, types strict, every issue in one pass.
@Suite struct RequestBodyTests {
    @Test func deviceRegistrationKeepsAbsentNullAndValueApart() throws {
        let absent = try DeviceRegistration(json: json(#"{"device_id":"d1"}"#))
        #expect(absent.pushToken == .absent)
        #expect(absent.userEmail == .absent)
        #expect(absent.platform == .absent)
        let cleared = try DeviceRegistration(json: json(#"{"device_id":"d1","user_email":null,"push_token":null,"platform":null}"#))
        #expect(cleared.userEmail == .cleared)
        #expect(cleared.pushToken == .cleared)
        #expect(cleared.platform == .cleared)
        let set = try DeviceRegistration(json: json(#"{"device_id":"d1","user_email":"a@b.c","push_token":"ab12","platform":"ios"}"#))
        #expect(set.userEmail == .set("a@b.c"))
        #expect(set.pushToken.value == "ab12")
        #expect(set.platform == .set(.ios))
        // The three states survive a round trip: absent stays out, null stays null.
        #expect(cleared.jsonValue(.response) == json(#"{"device_id":"d1","push_token":null,"platform":null,"user_email":null}"#))
        #expect(absent.jsonValue(.response) == json(#"{"device_id":"d1"}"#))
        #expect(try DeviceRegistration(json: set.jsonValue(.response)) == set)
    }

    static let requestCases: [(String, @Sendable (JSONValue) -> [ValidationIssue], String, [PathComponent]?)] = [
        ("device: missing device_id", { issues(DeviceRegistration.self, $0) }, #"{}"#, ["device_id"]),
        ("device: number as device_id", { issues(DeviceRegistration.self, $0) }, #"{"device_id":123}"#, ["device_id"]),
        ("device: platform android", { issues(DeviceRegistration.self, $0) }, #"{"device_id":"d","platform":"android"}"#, ["platform"]),
        ("device: unknown keys ignored", { issues(DeviceRegistration.self, $0) }, #"{"device_id":"d","extra":1}"#, nil),
        ("location: latitude 90", { issues(LocationUpdate.self, $0) }, #"{"device_id":"d","latitude":90,"longitude":0}"#, nil),
        ("location: latitude -90", { issues(LocationUpdate.self, $0) }, #"{"device_id":"d","latitude":-90,"longitude":0}"#, nil),
        ("location: latitude 91", { issues(LocationUpdate.self, $0) }, #"{"device_id":"d","latitude":91,"longitude":0}"#, ["latitude"]),
        ("location: latitude -91", { issues(LocationUpdate.self, $0) }, #"{"device_id":"d","latitude":-91,"longitude":0}"#, ["latitude"]),
        ("location: longitude 180", { issues(LocationUpdate.self, $0) }, #"{"device_id":"d","latitude":0,"longitude":180}"#, nil),
        ("location: longitude 181", { issues(LocationUpdate.self, $0) }, #"{"device_id":"d","latitude":0,"longitude":181}"#, ["longitude"]),
        ("location: longitude -181", { issues(LocationUpdate.self, $0) }, #"{"device_id":"d","latitude":0,"longitude":-181}"#, ["longitude"]),
        ("location: recorded_at date only", { issues(LocationUpdate.self, $0) }, #"{"device_id":"d","latitude":0,"longitude":0,"recorded_at":"2026-09-24"}"#, nil),
        ("location: recorded_at garbage", { issues(LocationUpdate.self, $0) }, #"{"device_id":"d","latitude":0,"longitude":0,"recorded_at":"yesterday"}"#, ["recorded_at"]),
        // pydantic's lax mode: a numeric string is a float.
        ("location: latitude as string", { issues(LocationUpdate.self, $0) }, #"{"device_id":"d","latitude":"47.0","longitude":0}"#, nil),
        ("location: latitude not a number", { issues(LocationUpdate.self, $0) }, #"{"device_id":"d","latitude":"47,0","longitude":0}"#, ["latitude"]),
        ("notification: data null", { issues(NotificationActionReceived.self, $0) }, #"{"device_id":"d","action":"a","data":null}"#, nil),
        ("notification: data list", { issues(NotificationActionReceived.self, $0) }, #"{"device_id":"d","action":"a","data":[1]}"#, ["data"]),
        ("widget action: values null", { issues(WidgetActionReceived.self, $0) }, #"{"device_id":"d","widget_id":"w","action_id":"a","values":null}"#, ["values"]),
        ("widget action: source homeScreen", { issues(WidgetActionReceived.self, $0) }, #"{"device_id":"d","widget_id":"w","action_id":"a","source":"homeScreen"}"#, nil),
        ("widget action: source lockScreen", { issues(WidgetActionReceived.self, $0) }, #"{"device_id":"d","widget_id":"w","action_id":"a","source":"lockScreen"}"#, ["source"]),
        ("widget options: widget only", { issues(WidgetOptionsRequest.self, $0) }, #"{"device_id":"d","widget_id":"w","field_id":"f"}"#, nil),
        ("widget options: empty form id counts", { issues(WidgetOptionsRequest.self, $0) }, #"{"device_id":"d","form_id":"","field_id":"f"}"#, nil),
        ("widget options: both", { issues(WidgetOptionsRequest.self, $0) }, #"{"device_id":"d","widget_id":"w","form_id":"f","field_id":"f"}"#, []),
        ("widget options: neither", { issues(WidgetOptionsRequest.self, $0) }, #"{"device_id":"d","widget_id":null,"field_id":"f"}"#, []),
        ("widget options: query null", { issues(WidgetOptionsRequest.self, $0) }, #"{"device_id":"d","widget_id":"w","field_id":"f","query":null}"#, ["query"]),
        ("widget options: values null", { issues(WidgetOptionsRequest.self, $0) }, #"{"device_id":"d","widget_id":"w","field_id":"f","values":null}"#, ["values"]),
        ("widget options: context list", { issues(WidgetOptionsRequest.self, $0) }, #"{"device_id":"d","widget_id":"w","field_id":"f","context":[]}"#, ["context"]),
        ("decision: approve", { issues(ApprovalDecisionReceived.self, $0) }, #"{"device_id":"d","approval_id":"a","decision":"approve"}"#, nil),
        ("decision: maybe", { issues(ApprovalDecisionReceived.self, $0) }, #"{"device_id":"d","approval_id":"a","decision":"maybe"}"#, ["decision"]),
        ("live activity: ended without activity id", { issues(LiveActivityTokenReceived.self, $0) }, #"{"device_id":"d","event":"ended"}"#, nil),
        ("live activity: push_to_start_token", { issues(LiveActivityTokenReceived.self, $0) }, #"{"device_id":"d","event":"push_to_start_token","push_token":"t"}"#, nil),
        ("live activity: unknown event", { issues(LiveActivityTokenReceived.self, $0) }, #"{"device_id":"d","event":"started"}"#, ["event"]),
    ]

    @Test(arguments: requestCases.indices)
    func requestRule(_ index: Int) {
        let (name, decode, input, path) = Self.requestCases[index]
        let found = decode(json(input))
        if let path {
            #expect(found.contains { $0.path == path }, "\(name): expected an issue at \(path), got \(found.map(\.description))")
        } else {
            #expect(found.isEmpty, "\(name): expected valid, got \(found.map(\.description))")
        }
    }

    @Test func everyIssueIsReportedInOnePassWithItsPath() {
        let found = issues(
            LocationUpdate.self,
            json(#"{"device_id":1,"user_email":false,"latitude":95,"accuracy":"x","recorded_at":"no"}"#))
        let byPath = Dictionary(grouping: found, by: \.path).mapValues { $0.map(\.type) }
        #expect(byPath[["device_id"]] == ["string_type"])
        #expect(byPath[["user_email"]] == ["string_type"])
        #expect(byPath[["latitude"]] == ["less_than_equal"])
        #expect(byPath[["longitude"]] == ["missing"])
        #expect(byPath[["accuracy"]] == ["float_parsing"])
        #expect(byPath[["recorded_at"]] == ["datetime_from_date_parsing"])
        #expect(found.count == 6, "one issue per broken member: \(found.map(\.description))")
    }

    @Test func widgetOptionsTargetAndDefaults() throws {
        let form = try WidgetOptionsRequest(json: json(#"{"device_id":"d","form_id":"f1","field_id":"x","context":{"k":1}}"#))
        #expect(form.target == .form("f1"))
        #expect(form.query == "")
        #expect(form.values.isEmpty)
        #expect(form.context == ["k": 1])
        let written = form.jsonValue(.response)
        #expect(written["query"] == "", "query default is written")
        #expect(written["widget_id"] == nil, "the other target is left out")
        #expect(try WidgetOptionsRequest(json: written) == form)
    }

    @Test func widgetActionValuesDefaultToEmptyObject() throws {
        let action = try WidgetActionReceived(json: json(#"{"device_id":"d","widget_id":"w","action_id":"a","item_id":"r1","values":{"n":1.50}}"#))
        #expect(action.itemID == "r1")
        #expect(action.values["n"] == .number(JSONNumber(text: "1.50")!), "numbers keep their literal")
        let bare = try WidgetActionReceived(json: json(#"{"device_id":"d","widget_id":"w","action_id":"a"}"#))
        #expect(bare.values.isEmpty)
    }
}
