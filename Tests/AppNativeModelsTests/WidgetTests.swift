import AppNativeJSON
import AppNativeModels
import Testing

/// Widgets of `contract/models.md` §1: common fields, every kind's data, encodings.
@Suite struct WidgetTests {
    static func widget(_ kind: String, _ data: String, extra: String = "") -> String {
        #"{"id":"w1","kind":"\#(kind)"\#(extra),"data":\#(data)}"#
    }

    static let cases: [RuleCase] = [
        RuleCase("id empty", #"{"id":"","kind":"text","data":{"markdown":"x"}}"#, .invalid(["id"])),
        RuleCase("id with slash", #"{"id":"a/b","kind":"text","data":{"markdown":"x"}}"#, .invalid(["id"])),
        RuleCase("id missing", #"{"kind":"text","data":{"markdown":"x"}}"#, .invalid(["id"])),
        RuleCase("unknown kind", #"{"id":"w","kind":"gauge","data":{}}"#, .invalid(["kind"])),
        RuleCase("data missing", #"{"id":"w","kind":"text"}"#, .invalid(["data"])),
        RuleCase("size unknown", widget("text", #"{"markdown":"x"}"#, extra: #","size":"huge""#), .invalid(["size"])),
        RuleCase("title null", widget("text", #"{"markdown":"x"}"#, extra: #","title":null"#), .invalid(["title"])),
        RuleCase("required null", widget("text", #"{"markdown":"x"}"#, extra: #","required":null"#), .invalid(["required"])),
        RuleCase("updatedAt not a date", widget("text", #"{"markdown":"x"}"#, extra: #","updatedAt":"soon""#), .invalid(["updatedAt"])),
        RuleCase("updatedAt unix seconds", widget("text", #"{"markdown":"x"}"#, extra: #","updatedAt":1790519400"#), .valid),
        RuleCase("snake_case input accepted", widget("text", #"{"markdown":"x","link_label":"More"}"#, extra: #","default_enabled":false"#), .valid),
        RuleCase("kpi value missing", widget("kpi", #"{"unit":"x"}"#), .invalid(["data", "value"])),
        // The reference's `str | int | float` reads a boolean as an integer.
        RuleCase("kpi value bool", widget("kpi", #"{"value":true}"#), .valid),
        RuleCase("kpi value list", widget("kpi", #"{"value":[1]}"#), .invalid(["data", "value"])),
        RuleCase("kpi trend direction unknown", widget("kpi", #"{"value":1,"trend":{"direction":"sideways"}}"#), .invalid(["data", "trend", "direction"])),
        RuleCase("stats 0 items", widget("stats", #"{"items":[]}"#), .invalid(["data", "items"])),
        RuleCase("stats 1 item", widget("stats", #"{"items":[{"label":"a","value":1}]}"#), .valid),
        RuleCase("stats 4 items", widget("stats", #"{"items":"# + repeated(#"{"label":"a","value":1}"#, 4) + "}"), .valid),
        RuleCase("stats 5 items", widget("stats", #"{"items":"# + repeated(#"{"label":"a","value":1}"#, 5) + "}"), .invalid(["data", "items"])),
        RuleCase("list empty", widget("list", #"{}"#), .valid),
        RuleCase("list maxVisible 0", widget("list", #"{"maxVisible":0}"#), .invalid(["data", "maxVisible"])),
        RuleCase("list maxVisible 1", widget("list", #"{"maxVisible":1}"#), .valid),
        RuleCase("list item id empty", widget("list", #"{"items":[{"id":"","title":""}]}"#), .invalid(["data", "items", 0, "id"])),
        RuleCase("list item title may be empty", widget("list", #"{"items":[{"id":"r","title":""}]}"#), .valid),
        RuleCase("list item button label empty", widget("list", #"{"items":[{"id":"r","title":"t","actions":[{"id":"a","label":""}]}]}"#), .invalid(["data", "items", 0, "actions", 0, "label"])),
        RuleCase("chart no series", widget("chart", #"{"series":[]}"#), .invalid(["data", "series"])),
        RuleCase("chart empty points", widget("chart", #"{"series":[{"points":[]}]}"#), .valid),
        RuleCase("chart points missing", widget("chart", #"{"series":[{"name":"a"}]}"#), .invalid(["data", "series", 0, "points"])),
        RuleCase("chart y numeric string", widget("chart", #"{"series":[{"points":[{"x":"a","y":"1"}]}]}"#), .valid),
        RuleCase("chart y string", widget("chart", #"{"series":[{"points":[{"x":"a","y":"one"}]}]}"#), .invalid(["data", "series", 0, "points", 0, "y"])),
        RuleCase("chart type pie", widget("chart", #"{"type":"pie","series":[{"points":[]}]}"#), .invalid(["data", "type"])),
        RuleCase("progress value missing", widget("progress", #"{"style":"ring"}"#), .invalid(["data", "value"])),
        RuleCase("progress style unknown", widget("progress", #"{"value":1,"style":"dial"}"#), .invalid(["data", "style"])),
        RuleCase("text markdown missing", widget("text", #"{}"#), .invalid(["data", "markdown"])),
        RuleCase("news title empty", widget("news", #"{"items":[{"id":"n","title":""}]}"#), .invalid(["data", "items", 0, "title"])),
        RuleCase("news channel singular kept", widget("news", #"{"items":[{"id":"n","title":"t","channel":"hr"}]}"#), .valid),
        RuleCase("web https", widget("web", #"{"url":"https://example.com/x"}"#), .valid),
        RuleCase("web HTTPS upper case and spaces", widget("web", #"{"url":"  HTTPS://example.com "}"#), .valid),
        RuleCase("web http", widget("web", #"{"url":"http://example.com"}"#), .invalid(["data", "url"])),
        RuleCase("web no host", widget("web", #"{"url":"https:///path"}"#), .invalid(["data", "url"])),
        // urlsplit's netloc, not a host, must be non-empty: the reference keeps this one.
        RuleCase("web port only", widget("web", #"{"url":"https://:443/"}"#), .valid),
        RuleCase("web without netloc", widget("web", #"{"url":"https:///x"}"#), .invalid(["data", "url"])),
        RuleCase("action no buttons", widget("action", #"{"buttons":[]}"#), .invalid(["data", "buttons"])),
        RuleCase("action button only", widget("action", #"{"buttons":[{"id":"b","label":"B"}]}"#), .valid),
    ]

    @Test(arguments: cases)
    func widgetRule(_ rule: RuleCase) {
        rule.check(Widget.self)
    }

    @Test func responseEncodingWritesDefaultsAndOmitsNulls() throws {
        let widget = try Widget(json: json(#"{"id":"w","kind":"list","icon":null,"data":{"items":[{"id":"r","title":"t","actions":[{"id":"a","label":"A"}]}]}}"#))
        let written = widget.jsonValue(.response)
        #expect(written["title"] == "")
        #expect(written["required"] == false)
        #expect(written["defaultEnabled"] == true)
        #expect(written["icon"] == nil, "null keys are left out")
        #expect(written["size"] == nil, "size has no non-null default")
        #expect(written["data"]?["items"]?.arrayValue?.first?["actions"]?.arrayValue?.first?["style"] == "primary")
        let sparse = widget.jsonValue(.presentKeysOnly)
        #expect(sparse["title"] == nil && sparse["required"] == nil && sparse["defaultEnabled"] == nil)
        #expect(widget.kind.defaultSize == .medium)
    }

    @Test(arguments: [
        ("kpi", #"{"value":1}"#, #"{"value":1,"trend":{"direction":"flat"}}"#, "trend.direction"),
        ("list", #"{}"#, #"{"items":[]}"#, "items"),
        ("chart", #"{"series":[{"points":[]}]}"#, #"{"type":"bar","series":[{"points":[]}]}"#, "type"),
        ("progress", #"{"value":0.5}"#, #"{"value":0.5,"style":"bar"}"#, "style"),
        ("news", #"{}"#, #"{"items":[]}"#, "items"),
        ("web", #"{"url":"https://a.b"}"#, #"{"url":"https://a.b","scrollable":false}"#, "scrollable"),
    ])
    func dataDefaultsAreWritten(_ kind: String, _ input: String, _ expected: String, _ name: String) throws {
        var inputValue = json(input)
        if kind == "kpi" { inputValue = json(#"{"value":1,"trend":{}}"#) }
        let widget = try Widget(json: json(#"{"id":"w","kind":"\#(kind)","data":\#(JSONSerializer.string(inputValue))}"#))
        #expect(widget.data.jsonValue(.response) == json(expected), "\(kind): default \(name) not written")
    }

    @Test func scalarValuesKeepTheirLiteral() throws {
        let widget = try Widget(json: json(#"{"id":"w","kind":"kpi","data":{"value":12.50}}"#))
        #expect(JSONSerializer.string(widget.data.jsonValue(.response)) == #"{"value":12.50}"#)
    }
}
