import AppNativeJSON
import AppNativeModels
import Testing

/// Approvals (`contract/models.md` §4), Live Activities (§5) and the result bodies (`contract/routes.md` §3).
@Suite struct ApprovalAndLiveActivityTests {
    @Test func approvalAcceptsConversationIdInBothSpellings() throws {
        let camel = try Approval(json: json(#"{"id":"a","title":"T","conversationId":"c1"}"#))
        let snake = try Approval(json: json(#"{"id":"a","title":"T","conversation_id":"c1"}"#))
        #expect(camel == snake)
        #expect(snake.jsonValue(.response)["conversationId"] == "c1")
        #expect(snake.jsonValue(.response)["conversation_id"] == nil, "output is camelCase only")
    }

    @Test func approvalRoundTripsEveryKey() throws {
        let text = #"{"id":"a","title":"T","subtitle":"s","category":"c","amount":"CHF 1","requester":"r","createdAt":"2026-09-24T08:00:00+02:00","dueAt":"2026-09-25T08:00:00.500000Z","urgent":true,"icon":"i","details":[{"label":"l","value":"v"}],"path":"/p","conversationId":"c","approveLabel":"Yes","rejectLabel":"No","approveComment":"none","rejectComment":"required","biometric":false}"#
        let approval = try Approval(json: json(text))
        #expect(approval.jsonValue(.presentKeysOnly) == json(text))
    }

    static let stateCases: [RuleCase] = [
        RuleCase("title empty", #"{"title":""}"#, .invalid(["title"])),
        RuleCase("progress 0", #"{"title":"t","progress":0}"#, .valid),
        RuleCase("progress 1", #"{"title":"t","progress":1}"#, .valid),
        RuleCase("progress 1.01", #"{"title":"t","progress":1.01}"#, .invalid(["progress"])),
        RuleCase("progress -0.01", #"{"title":"t","progress":-0.01}"#, .invalid(["progress"])),
        RuleCase("5 steps", #"{"title":"t","steps":["a","b","c","d","e"]}"#, .valid),
        RuleCase("6 steps", #"{"title":"t","steps":["a","b","c","d","e","f"]}"#, .invalid(["steps"])),
        RuleCase("currentStep -1", #"{"title":"t","currentStep":-1}"#, .invalid(["currentStep"])),
        RuleCase("currentStep 2 of 3", #"{"title":"t","steps":["a","b","c"],"currentStep":2}"#, .valid),
        RuleCase("currentStep 3 of 3", #"{"title":"t","steps":["a","b","c"],"currentStep":3}"#, .invalid(["currentStep"])),
        RuleCase("currentStep without steps", #"{"title":"t","currentStep":7}"#, .valid),
        RuleCase("currentStep with empty steps", #"{"title":"t","steps":[],"currentStep":7}"#, .valid),
        RuleCase("timerEnd garbage", #"{"title":"t","timerEnd":"later"}"#, .invalid(["timerEnd"])),
    ]

    @Test(arguments: stateCases)
    func stateRule(_ rule: RuleCase) {
        rule.check(LiveActivityState.self)
    }

    @Test(arguments: [
        ("ISO UTC", #""2026-09-29T08:30:00Z""#), ("ISO offset", #""2026-09-29T10:30:00+02:00""#),
        ("unix seconds", "1790670600"), ("unix milliseconds", "1790670600000"),
    ])
    func timerEndIsWrittenAsUnixSeconds(_ name: String, _ value: String) throws {
        let state = try LiveActivityState(json: json(#"{"title":"t","timerEnd":\#(value)}"#))
        #expect(state.jsonValue(.response)["timerEnd"] == .number(JSONNumber(text: "1790670600.0")!), "\(name)")
    }

    @Test func attributesUseCapitalIDKeys() throws {
        let attributes = try LiveActivityAttributes(json: json(#"{"web_app_id":"w","activity_id":"a","web_app_name":"App","path":"/x"}"#))
        #expect(attributes.jsonValue(.response) == json(#"{"webAppID":"w","activityID":"a","webAppName":"App","path":"/x"}"#))
        #expect(issues(LiveActivityAttributes.self, json(#"{"webAppID":"w","activityID":"","webAppName":"n"}"#)).map(\.pathDescription) == ["activityID"])
        #expect(LiveActivityAttributes.attributesType == "WebAppActivityAttributes")
    }

    @Test func resultBodiesKeepNonNullDefaults() throws {
        #expect(WidgetActionResult().jsonValue(.response) == json(#"{"ok":true}"#))
        #expect(ApprovalDecisionResult().jsonValue(.response) == json(#"{"ok":true}"#))
        #expect(ApprovalDecisionResult(ok: false, approvals: []).jsonValue(.response) == json(#"{"ok":false,"approvals":[]}"#))
        #expect(WidgetOptionsResult().jsonValue(.response) == json(#"{"options":[]}"#))
        let widget = Widget(id: "w", data: .text(TextData(markdown: "m")))
        let result = WidgetActionResult(message: "Saved", style: .success, widget: widget, openPath: "/x")
        #expect(result.jsonValue(.response) == json(#"{"ok":true,"message":"Saved","style":"success","widget":{"id":"w","kind":"text","title":"","required":false,"defaultEnabled":true,"data":{"markdown":"m"}},"openPath":"/x"}"#))
    }
}

/// Result bodies a backend returns are decoded before the gateway relays them (`contract/routes.md` §3).
@Suite struct ResultDecodingTests {
    @Test func widgetActionResultRoundTrips() throws {
        let text = #"{"ok":false,"message":"No","style":"error","widgets":[{"id":"a","kind":"text","data":{"markdown":"m"}}],"widget":{"id":"b","kind":"kpi","data":{"value":1}},"openPath":"/x"}"#
        let result = try WidgetActionResult(json: json(text))
        #expect(result.jsonValue(.presentKeysOnly) == json(text))
        #expect(issues(WidgetActionResult.self, json(#"{"style":"loud","widget":{"id":"a/b","kind":"text","data":{"markdown":"m"}}}"#)).map(\.pathDescription) == ["style", "widget.id"])
    }

    @Test func approvalDecisionResultKeepsAnEmptyList() throws {
        let result = try ApprovalDecisionResult(json: json(#"{"approvals":[]}"#))
        #expect(result.approvals == [])
        #expect(result.jsonValue(.response) == json(#"{"ok":true,"approvals":[]}"#))
        #expect(issues(ApprovalDecisionResult.self, json(#"{"ok":null}"#)).map(\.pathDescription) == ["ok"])
    }

    @Test func optionsResultWrapsABareList() throws {
        let wrapped = try WidgetOptionsResult(json: json(#"[{"value":"a","label":"A"}]"#))
        #expect(wrapped.jsonValue(.response) == json(#"{"options":[{"value":"a","label":"A"}]}"#))
        let object = try WidgetOptionsResult(json: json(#"{"emptyText":"none"}"#))
        #expect(object.jsonValue(.response) == json(#"{"options":[],"emptyText":"none"}"#))
        #expect(issues(WidgetOptionsResult.self, json(#"[{"label":"A"}]"#)).map(\.pathDescription) == ["options[0].value"])
    }
}
