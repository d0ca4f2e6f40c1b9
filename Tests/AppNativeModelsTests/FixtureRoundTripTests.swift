import AppNativeJSON
import AppNativeModels
import AppNativeTesting
import Foundation
import Testing

/// The contract fixtures decode and re-encode losslessly (fixtures README): only keys that were
/// present, numbers compared numerically.
@Suite struct FixtureRoundTripTests {
    static let loader = FixtureLoader(bundle: .module)

    static func fixture(_ name: String) throws -> JSONValue {
        try JSONParser().parse(Array(loader.data(name)))
    }

    @Test func everyWidgetRoundTrips() throws {
        let widgets = try #require(try Self.fixture("widgets.json").arrayValue)
        #expect(widgets.count == 8, "widgets.json should hold 8 widgets")
        var kinds: [String] = []
        for (index, raw) in widgets.enumerated() {
            let name = raw["id"]?.stringValue ?? "#\(index)"
            let widget: Widget
            do {
                widget = try Widget(json: raw)
            } catch {
                Issue.record("widget \(name) does not decode: \(error.issues.map(\.description))")
                continue
            }
            kinds.append(widget.kind.rawValue)
            let encoded = widget.jsonValue(.presentKeysOnly)
            #expect(numericallyEqual(encoded, raw),
                "widget \(name): round trip differs\n got \(JSONSerializer.string(encoded, sortingKeys: true))\nwant \(JSONSerializer.string(raw, sortingKeys: true))")
            #expect(try Widget(json: encoded) == widget, "widget \(name): decoding the re-encoding gives another value")
        }
        #expect(kinds == ["kpi", "stats", "list", "chart", "progress", "text", "action", "news"])
    }

    @Test func widgetFeedOfTheFixtureRoundTrips() throws {
        let widgets = try Self.fixture("widgets.json")
        let feed = try WidgetFeed(json: widgets)
        #expect(feed.widgets?.count == 8)
        let response = feed.jsonValue(.response)
        #expect(response["schema"] == 1, "feed response must carry schema 1")
        // Response encoding adds defaults; decoding it again gives the same widgets with the
        // defaults now set explicitly, which encode to the same response.
        let again = try WidgetFeed(json: response)
        #expect(again.jsonValue(.response) == response, "response encoding is not stable")
    }

    @Test func liveActivityStateRoundTrips() throws {
        let raw = try Self.fixture("live-activity-state.json")
        let state = try LiveActivityState(json: raw)
        #expect(state.currentStep == 1)
        #expect(numericallyEqual(state.jsonValue(.presentKeysOnly), raw), "live-activity-state: round trip differs")
        #expect(state.jsonValue(.response) == state.jsonValue(.presentKeysOnly), "state has no defaults to add")
    }
}
