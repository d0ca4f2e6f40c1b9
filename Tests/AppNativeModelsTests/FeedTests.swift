import AppNativeJSON
import AppNativeModels
import Testing

/// Lenient feed reading (`contract/models.md` §1.1, §4): invalid elements dropped one by one and reported.
@Suite struct FeedTests {
    static let good = #"{"id":"ok","kind":"text","data":{"markdown":"x"}}"#

    @Test func invalidWidgetsAreDroppedWithIdAndPath() throws {
        let feed = json(#"{"schema":1,"widgets":[\#(Self.good),{"id":"bad","kind":"stats","data":{"items":[]}},{"kind":"kpi","data":{}},\#(Self.good.replacingID("ok2"))]}"#)
        let result = try WidgetFeed.decodeDroppingInvalid(feed)
        #expect(result.kept.map(\.id) == ["ok", "ok2"])
        #expect(result.dropped.map(\.index) == [1, 2])
        #expect(result.dropped.map(\.id) == ["bad", nil])
        #expect(result.dropped[0].failingPaths == ["widgets[1].data.items"])
        #expect(Set(result.dropped[1].failingPaths) == ["widgets[2].id", "widgets[2].data.value"])
        #expect(throws: ModelError.self, "the strict decoder refuses the same feed") { try WidgetFeed(json: feed) }
    }

    @Test func bareArrayIsAFeed() throws {
        let result = try WidgetFeed.decodeDroppingInvalid(json("[\(Self.good),1]"))
        #expect(result.kept.count == 1)
        #expect(result.dropped.first?.failingPaths == ["[1]"])
        #expect(try WidgetFeed(json: json("[\(Self.good)]")).widgets?.count == 1)
    }

    @Test func webWidgetsOnlyFromThePrivilegedFeed() throws {
        let feed = json(#"[{"id":"w","kind":"web","data":{"url":"https://x.y"}}]"#)
        let ordinary = try WidgetFeed.decodeDroppingInvalid(feed)
        #expect(ordinary.kept.isEmpty)
        #expect(ordinary.dropped.first?.issues.first?.type == "web_widget_not_allowed")
        #expect(try WidgetFeed.decodeDroppingInvalid(feed, allowsWebWidgets: true).kept.count == 1)
    }

    @Test(arguments: [20, 21])
    func atMostTwentyWidgetsAreKept(_ count: Int) throws {
        let widgets = (0..<count).map { Self.good.replacingID("w\($0)") }.joined(separator: ",")
        let result = try WidgetFeed.decodeDroppingInvalid(json("[\(widgets)]"))
        #expect(result.kept.count == min(count, 20), "\(count) widgets")
        #expect(result.dropped.map(\.index) == (count > 20 ? [20] : []), "\(count) widgets")
        #expect(result.dropped.allSatisfy { $0.issues.allSatisfy { $0.kind == .tooLarge } })
    }

    @Test(arguments: [("not an object", "1"), ("widgets not a list", #"{"widgets":{}}"#)])
    func brokenEnvelopeThrows(_ name: String, _ text: String) {
        #expect(throws: ModelError.self, "\(name)") { try WidgetFeed.decodeDroppingInvalid(json(text)) }
    }

    @Test func feedResponseAlwaysHasSchemaAndWidgets() {
        #expect(WidgetFeed().jsonValue(.response) == json(#"{"schema":1,"widgets":[]}"#))
        #expect(ApprovalFeed().jsonValue(.response) == json(#"{"approvals":[]}"#))
    }

    @Test func invalidApprovalsAreDropped() throws {
        let feed = json(#"{"approvals":[{"id":"a1","title":"T"},{"id":"a2","title":""},{"id":"a3","title":"T","approveComment":"maybe"},{"id":"a4","title":"T","details":[{"label":"l"}]}]}"#)
        let result = try ApprovalFeed.decodeDroppingInvalid(feed)
        #expect(result.kept.map(\.id) == ["a1"])
        #expect(result.dropped.map(\.id) == ["a2", "a3", "a4"])
        #expect(result.dropped.map(\.failingPaths) == [["approvals[1].title"], ["approvals[2].approveComment"], ["approvals[3].details[0].value"]])
    }

    @Test(arguments: [100, 101])
    func atMostAHundredApprovalsAreKept(_ count: Int) throws {
        let approvals = (0..<count).map { #"{"id":"a\#($0)","title":"T"}"# }.joined(separator: ",")
        let result = try ApprovalFeed.decodeDroppingInvalid(json(#"{"approvals":[\#(approvals)]}"#))
        #expect(result.kept.count == min(count, 100), "\(count) approvals")
        #expect(result.dropped.count == max(0, count - 100), "\(count) approvals")
    }
}

extension String {
    /// The `good` widget with another id.
    fileprivate func replacingID(_ id: String) -> String {
        split(separator: #""ok""#, omittingEmptySubsequences: false).joined(separator: "\"\(id)\"")
    }
}
