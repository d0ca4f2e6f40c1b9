import AppNativeJSON
import AppNativeModels
import Testing

/// Native content (`contract/models.md` §3.2–§3.4): every block, step and `MAX_*` at and one past its value.
@Suite struct NativeContentTests {
    static func content(_ blocks: String, extra: String = "") -> String { #"{"blocks":\#(blocks)\#(extra)}"# }
    static func one(_ block: String) -> String { content("[\(block)]") }
    static let action = #"{"id":"a","label":"A"}"#
    static func actionThen(_ steps: String) -> String { #"{"id":"a","label":"A","then":\#(steps)}"# }
    static func card(_ inner: String) -> String { #"{"type":"card","blocks":[\#(inner)]}"# }
    static let text = #"{"type":"text","markdown":"x"}"#

    /// Content whose footer action chains `depth` further content surfaces; the innermost one
    /// ends with `innermost` (a footer action or nothing).
    static func chain(_ depth: Int, innermost: String = "") -> String {
        var surface = content("[\(text)]", extra: innermost)
        for _ in 0..<depth {
            surface = content("[\(text)]", extra: #","actions":[\#(actionThen(#"[{"showContent":\#(surface)}]"#))]"#)
        }
        return surface
    }

    static func svgData(_ bytes: Int) -> String { "data:image/svg+xml," + String(repeating: "a", count: bytes) }

    static let cases: [RuleCase] = [
        RuleCase("minimal", one(text), .valid),
        RuleCase("blocks missing", #"{"title":"t"}"#, .invalid(["blocks"])),
        RuleCase("blocks empty", content("[]"), .invalid(["blocks"])),
        RuleCase("unknown block type", one(#"{"type":"carousel"}"#), .invalid(["blocks", 0, "type"])),
        RuleCase("100 blocks", content(repeated(#"{"type":"divider"}"#, 100)), .valid),
        RuleCase("101 blocks", content(repeated(#"{"type":"divider"}"#, 101)), .tooLarge(["blocks"])),
        RuleCase("101 blocks counting nested", content(String(repeated(#"{"type":"divider"}"#, 98).dropLast()) + "," + card(#"{"type":"divider"},{"type":"divider"}"#) + "]"), .tooLarge(["blocks"])),
        RuleCase("card>card>text nests 3", one(card(card(text))), .valid),
        RuleCase("card>card>card>text nests 4", one(card(card(card(text)))), .tooLarge(["blocks", 0, "blocks", 0, "blocks", 0, "blocks", 0])),
        RuleCase("row>card>text nests 3", one(#"{"type":"row","blocks":[\#(card(text)),\#(text)]}"#), .valid),
        RuleCase("card without blocks", one(#"{"type":"card","blocks":[]}"#), .invalid(["blocks", 0, "blocks"])),
        RuleCase("row of 1", one(#"{"type":"row","blocks":[\#(text)]}"#), .invalid(["blocks", 0, "blocks"])),
        RuleCase("row of 2", one(#"{"type":"row","blocks":[\#(text),\#(text)]}"#), .valid),
        RuleCase("row of 3", one(#"{"type":"row","blocks":[\#(text),\#(text),\#(text)]}"#), .valid),
        RuleCase("row of 4 is invalid not tooLarge", one(#"{"type":"row","blocks":[\#(text),\#(text),\#(text),\#(text)]}"#), .invalid(["blocks", 0, "blocks"])),
        RuleCase("4 footer actions", content("[\(text)]", extra: #","actions":"# + repeated(action, 4)), .valid),
        RuleCase("5 footer actions", content("[\(text)]", extra: #","actions":"# + repeated(action, 5)), .tooLarge(["actions"])),
        RuleCase("6 buttons", one(#"{"type":"buttons","items":"# + repeated(action, 6) + "}"), .valid),
        RuleCase("7 buttons", one(#"{"type":"buttons","items":"# + repeated(action, 7) + "}"), .tooLarge(["blocks", 0, "items"])),
        RuleCase("buttons empty", one(#"{"type":"buttons","items":[]}"#), .invalid(["blocks", 0, "items"])),
        RuleCase("60 content fields", content(#"[{"type":"fields","fields":"# + fieldsJSON(30) + #"},{"type":"fields","fields":"# + fieldsJSON(30).replacingF("g") + "}]"), .valid),
        RuleCase("61 content fields", content(#"[{"type":"fields","fields":"# + fieldsJSON(30) + #"},{"type":"fields","fields":"# + fieldsJSON(31).replacingF("g") + "}]"), .tooLarge(["blocks"])),
        RuleCase("fields block empty", one(#"{"type":"fields","fields":[]}"#), .invalid(["blocks", 0, "fields"])),
        RuleCase("content select without options", one(#"{"type":"fields","fields":[{"id":"s","type":"select"}]}"#), .invalid(["blocks", 0, "fields", 0, "options"])),
        RuleCase("content select 201 options", one(#"{"type":"fields","fields":[{"id":"s","type":"select","options":"# + NativeFormTests.options(201) + "}]}"), .tooLarge(["blocks", 0, "fields", 0, "options"])),
        RuleCase("20 table columns", one(#"{"type":"table","columns":"# + "[" + (0..<20).map { #"{"key":"k\#($0)","label":"L"}"# }.joined(separator: ",") + #"],"rows":[]}"#), .valid),
        RuleCase("21 table columns", one(#"{"type":"table","columns":"# + "[" + (0..<21).map { #"{"key":"k\#($0)","label":"L"}"# }.joined(separator: ",") + #"],"rows":[]}"#), .tooLarge(["blocks", 0, "columns"])),
        RuleCase("200 table rows", one(#"{"type":"table","columns":[{"key":"k","label":"L"}],"rows":"# + repeated(#"{"k":1}"#, 200) + "}"), .valid),
        RuleCase("201 table rows", one(#"{"type":"table","columns":[{"key":"k","label":"L"}],"rows":"# + repeated(#"{"k":1}"#, 201) + "}"), .tooLarge(["blocks", 0, "rows"])),
        RuleCase("table no columns", one(#"{"type":"table","columns":[],"rows":[]}"#), .invalid(["blocks", 0, "columns"])),
        RuleCase("table duplicate column keys", one(#"{"type":"table","columns":[{"key":"k","label":"A"},{"key":"k","label":"B"}],"rows":[]}"#), .invalid(["blocks", 0, "columns", 1, "key"])),
        RuleCase("table column key empty", one(#"{"type":"table","columns":[{"key":"","label":"A"}],"rows":[]}"#), .invalid(["blocks", 0, "columns", 0, "key"])),
        // The reference's `str | int | float` reads a boolean as an integer.
        RuleCase("table cell bool", one(#"{"type":"table","columns":[{"key":"k","label":"A"}],"rows":[{"k":true}]}"#), .valid),
        RuleCase("table cell list", one(#"{"type":"table","columns":[{"key":"k","label":"A"}],"rows":[{"k":[1]}]}"#), .invalid(["blocks", 0, "rows", 0, "k"])),
        RuleCase("chain depth 4", chain(4), .valid),
        RuleCase("chain depth 5", chain(5), .tooLarge([])),
        RuleCase("chain depth 4 ending in a form", chain(3, innermost: #","actions":[\#(actionThen(#"[{"showForm":{"fields":[{"id":"a"}]}}]"#))]"#), .valid),
        RuleCase("chain depth 5 ending in a form", chain(4, innermost: #","actions":[\#(actionThen(#"[{"showForm":{"fields":[{"id":"a"}]}}]"#))]"#), .tooLarge([])),
        RuleCase("chain through a list item action", one(#"{"type":"list","items":[{"title":"t","action":\#(actionThen(#"[{"showContent":\#(chain(4))}]"#))}]}"#), .tooLarge([])),
        RuleCase("chain through a nested buttons block", one(card(#"{"type":"buttons","items":[\#(actionThen(#"[{"showContent":\#(chain(4))}]"#))]}"#)), .tooLarge([])),
        RuleCase("chained form validated", content("[\(text)]", extra: #","actions":[\#(actionThen(#"[{"showForm":{"fields":[{"id":"s","type":"select"}]}}]"#))]"#), .invalid(["actions", 0, "then", 0, "showForm", "fields", 0, "options"])),
        RuleCase("6 then steps", content("[\(text)]", extra: #","actions":[\#(actionThen(repeated(#"{"close":true}"#, 6)))]"#), .valid),
        RuleCase("7 then steps", content("[\(text)]", extra: #","actions":[\#(actionThen(repeated(#"{"close":true}"#, 7)))]"#), .tooLarge(["actions", 0, "then"])),
        RuleCase("step with two keys", content("[\(text)]", extra: #","actions":[\#(actionThen(#"[{"close":true,"copy":"x"}]"#))]"#), .invalid(["actions", 0, "then", 0])),
        RuleCase("step with no keys", content("[\(text)]", extra: #","actions":[\#(actionThen(#"[{}]"#))]"#), .invalid(["actions", 0, "then", 0])),
        RuleCase("step unknown", content("[\(text)]", extra: #","actions":[\#(actionThen(#"[{"vibrate":true}]"#))]"#), .invalid(["actions", 0, "then", 0])),
        RuleCase("openPath empty", content("[\(text)]", extra: #","actions":[\#(actionThen(#"[{"openPath":""}]"#))]"#), .invalid(["actions", 0, "then", 0, "openPath"])),
        RuleCase("openUrl https", content("[\(text)]", extra: #","actions":[\#(actionThen(#"[{"openUrl":"HTTPS://x.y"}]"#))]"#), .valid),
        RuleCase("openUrl tel", content("[\(text)]", extra: #","actions":[\#(actionThen(#"[{"openUrl":"tel:+41"}]"#))]"#), .valid),
        RuleCase("openUrl mailto", content("[\(text)]", extra: #","actions":[\#(actionThen(#"[{"openUrl":"MailTo:a@b"}]"#))]"#), .valid),
        RuleCase("openUrl http", content("[\(text)]", extra: #","actions":[\#(actionThen(#"[{"openUrl":"http://x.y"}]"#))]"#), .invalid(["actions", 0, "then", 0, "openUrl"])),
        RuleCase("openUrl javascript", content("[\(text)]", extra: #","actions":[\#(actionThen(#"[{"openUrl":"javascript:alert(1)"}]"#))]"#), .invalid(["actions", 0, "then", 0, "openUrl"])),
        RuleCase("close false", content("[\(text)]", extra: #","actions":[\#(actionThen(#"[{"close":false}]"#))]"#), .invalid(["actions", 0, "then", 0, "close"])),
        RuleCase("close 1", content("[\(text)]", extra: #","actions":[\#(actionThen(#"[{"close":1}]"#))]"#), .invalid(["actions", 0, "then", 0, "close"])),
        RuleCase("device navigate", content("[\(text)]", extra: #","actions":[\#(actionThen(#"[{"device":{"action":"navigate","latitude":1}}]"#))]"#), .valid),
        RuleCase("device unknown action", content("[\(text)]", extra: #","actions":[\#(actionThen(#"[{"device":{"action":"selfDestruct"}}]"#))]"#), .invalid(["actions", 0, "then", 0, "device", "action"])),
        RuleCase("share", content("[\(text)]", extra: #","actions":[\#(actionThen(#"[{"share":{"text":"t","url":"u"}}]"#))]"#), .valid),
        RuleCase("action label empty", content("[\(text)]", extra: #","actions":[{"id":"a","label":""}]"#), .invalid(["actions", 0, "label"])),
        RuleCase("image without url or data", one(#"{"type":"image","alt":"x"}"#), .invalid(["blocks", 0])),
        RuleCase("image url http", one(#"{"type":"image","url":"http://x"}"#), .invalid(["blocks", 0, "url"])),
        RuleCase("image url upper-case HTTPS (pinned: lower-case prefix)", one(#"{"type":"image","url":"HTTPS://x"}"#), .invalid(["blocks", 0, "url"])),
        RuleCase("image data not an image", one(#"{"type":"image","data":"data:text/plain,hi"}"#), .invalid(["blocks", 0, "data"])),
        RuleCase("image height 0", one(#"{"type":"image","url":"https://x","height":0}"#), .invalid(["blocks", 0, "height"])),
        RuleCase("image fit unknown", one(#"{"type":"image","url":"https://x","fit":"stretch"}"#), .invalid(["blocks", 0, "fit"])),
        RuleCase("list item image data URI", one(#"{"type":"list","items":[{"title":"t","image":"data:image/png;base64,AAAA"}]}"#), .invalid(["blocks", 0, "items", 0, "image"])),
        RuleCase("list item image https", one(#"{"type":"list","items":[{"title":"t","image":"https://x/y.png","trailing":3}]}"#), .valid),
        RuleCase("list empty", one(#"{"type":"list","items":[]}"#), .invalid(["blocks", 0, "items"])),
        RuleCase("facts empty", one(#"{"type":"facts","items":[]}"#), .invalid(["blocks", 0, "items"])),
        RuleCase("facts kind unknown", one(#"{"type":"facts","items":[{"label":"l","value":"v","kind":"fax"}]}"#), .invalid(["blocks", 0, "items", 0, "kind"])),
        RuleCase("heading level 3", one(#"{"type":"heading","text":"h","level":3}"#), .valid),
        RuleCase("heading level 4", one(#"{"type":"heading","text":"h","level":4}"#), .invalid(["blocks", 0, "level"])),
        RuleCase("heading text missing", one(#"{"type":"heading"}"#), .invalid(["blocks", 0, "text"])),
        RuleCase("text style unknown", one(#"{"type":"text","markdown":"m","style":"title"}"#), .invalid(["blocks", 0, "style"])),
        RuleCase("map latitude 90", one(#"{"type":"map","latitude":90,"longitude":-180}"#), .valid),
        RuleCase("map latitude 91", one(#"{"type":"map","latitude":91,"longitude":0}"#), .invalid(["blocks", 0, "latitude"])),
        RuleCase("map longitude -181", one(#"{"type":"map","latitude":0,"longitude":-181}"#), .invalid(["blocks", 0, "longitude"])),
        RuleCase("map span 0", one(#"{"type":"map","latitude":0,"longitude":0,"span":0}"#), .invalid(["blocks", 0, "span"])),
        RuleCase("file http", one(#"{"type":"file","url":"http://x/f.pdf"}"#), .invalid(["blocks", 0, "url"])),
        RuleCase("video poster http", one(#"{"type":"video","url":"https://x/v.mp4","poster":"http://x/p.jpg"}"#), .invalid(["blocks", 0, "poster"])),
        RuleCase("callout style missing", one(#"{"type":"callout","text":"t"}"#), .invalid(["blocks", 0, "style"])),
        RuleCase("callout", one(#"{"type":"callout","style":"warning","text":"t"}"#), .valid),
        RuleCase("badge tint", one(##"{"type":"badges","items":[{"text":"b","tint":"#aabbcc"}]}"##), .valid),
        RuleCase("badge tint bad", one(#"{"type":"badges","items":[{"text":"b","tint":"red"}]}"#), .invalid(["blocks", 0, "items", 0, "tint"])),
        RuleCase("spacer height 0", one(#"{"type":"spacer","height":0}"#), .valid),
        RuleCase("spacer height -1", one(#"{"type":"spacer","height":-1}"#), .invalid(["blocks", 0, "height"])),
        RuleCase("kpi block", one(#"{"type":"kpi","data":{"value":"3"}}"#), .valid),
        RuleCase("stats block with 5 items", one(#"{"type":"stats","data":{"items":"# + repeated(#"{"label":"a","value":1}"#, 5) + "}}"), .invalid(["blocks", 0, "data", "items"])),
        RuleCase("surface tint bad", content("[\(text)]", extra: #","tint":"blue""#), .invalid(["tint"])),
        RuleCase("inline image of 1 MiB", one(#"{"type":"image","data":"\#(svgData(1_048_576))"}"#), .tooLarge([])),
        RuleCase("inline image of 1 MiB + 1", one(#"{"type":"image","data":"\#(svgData(1_048_577))"}"#), .tooLarge(["blocks", 0, "data"])),
    ]

    @Test(arguments: cases)
    func contentRule(_ rule: RuleCase) {
        rule.check(NativeContent.self)
    }

    @Test func inlineImageLimitsAreCheckedApartFromTheDefinitionSize() throws {
        // A 1 MiB image always breaks the 256 KiB definition size too; what matters here is
        // which limit issues appear at which path.
        func limitIssues(_ text: String) -> [String] {
            issues(NativeContent.self, json(text)).filter { $0.kind == .tooLarge }.map(\.pathDescription)
        }
        #expect(!limitIssues(Self.one(#"{"type":"image","data":"\#(Self.svgData(1_048_576))"}"#)).contains("blocks[0].data"),
            "exactly 1 MiB is allowed per image")
        #expect(limitIssues(Self.one(#"{"type":"image","data":"\#(Self.svgData(1_048_577))"}"#)).contains("blocks[0].data"))
        let four = Self.content(repeated(#"{"type":"image","data":"\#(Self.svgData(1_048_576))"}"#, 4))
        #expect(!limitIssues(four).contains("blocks"), "exactly 4 MiB in total is allowed")
        let more = Self.content(
            "[" + Array(repeating: #"{"type":"image","data":"\#(Self.svgData(1_048_576))"}"#, count: 4).joined(separator: ",")
                + #",{"type":"image","data":"\#(Self.svgData(1))"}]"#)
        #expect(limitIssues(more).contains("blocks"), "one byte over 4 MiB in total")
    }

    @Test(arguments: [
        ("plain", "data:image/svg+xml,<svg/>", 6),
        ("base64 no padding", "data:image/png;base64,AAAA", 3),
        ("base64 one pad", "data:image/png;base64,AAA=", 2),
        ("base64 two pads", "data:image/png;base64,AA==", 1),
        ("base64 upper-case marker", "data:image/png;BASE64,AAAAAAAA", 6),
        ("base64 odd length floors", "data:image/png;base64,AAAAA", 3),
        ("only padding", "data:image/png;base64,==", 0),
        ("no comma", "data:image/png;base64", 0),
        ("utf-8 payload", "data:image/svg+xml,é", 2),
    ])
    func dataURISize(_ name: String, _ uri: String, _ expected: Int) {
        #expect(DataURI.decodedByteCount(uri) == expected, "\(name)")
    }

    @Test func everyBlockRoundTrips() throws {
        let text = ##"{"id":"c","title":"T","subtitle":"S","blocks":[{"type":"heading","text":"h","level":2,"icon":"star"},{"type":"text","markdown":"m","style":"caption","align":"center"},{"type":"image","url":"https://x/i.png","alt":"a","height":120,"fit":"fill","shape":"circle","tapToZoom":true},{"type":"facts","items":[{"label":"l","value":"v","kind":"phone","copyable":true}]},{"type":"list","items":[{"title":"t","subtitle":"s","trailing":2.5,"image":"https://x/y","action":{"id":"a","label":"A","then":[{"openPath":"/p"},{"copy":"c"},{"share":{"url":"https://x"}},{"device":{"action":"callPhone","number":"+41"}},{"close":true}]}}]},{"type":"table","columns":[{"key":"k","label":"K","align":"trailing"}],"rows":[{"k":"v"},{"k":2}],"caption":"c"},{"type":"map","latitude":47.3,"longitude":8.5,"name":"Z","span":500,"height":200},{"type":"file","url":"https://x/f.pdf","name":"f","mime":"application/pdf"},{"type":"video","url":"https://x/v","poster":"https://x/p"},{"type":"callout","style":"info","title":"t","text":"x"},{"type":"badges","items":[{"text":"b","tint":"#aabbcc","icon":"i"}]},{"type":"buttons","items":[{"id":"b","label":"B","style":"secondary","submit":true,"wait":false}]},{"type":"kpi","data":{"value":1}},{"type":"stats","data":{"items":[{"label":"a","value":"b"}]}},{"type":"chart","data":{"series":[{"points":[{"x":1,"y":2}]}]}},{"type":"progress","data":{"value":0.5}},{"type":"fields","fields":[{"id":"f","type":"date","value":"2026-01-01"}]},{"type":"card","title":"c","blocks":[{"type":"divider"}]},{"type":"row","blocks":[{"type":"spacer","height":8},{"type":"spacer"}]}],"actions":[{"id":"x","label":"X","then":[{"showForm":{"fields":[{"id":"q"}]}},{"openUrl":"tel:1"}]}]}"##
        let content = try NativeContent(json: json(text))
        #expect(content.blocks.count == 19)
        #expect(Set(content.blocks.map(\.kind)).count == ContentBlock.Kind.allCases.count - 2, "every kind but divider and spacer at top level")
        let written = content.jsonValue(.presentKeysOnly)
        #expect(numericallyEqual(written, json(text)),
            "round trip differs:\n\(JSONSerializer.string(written, sortingKeys: true))")
        #expect(try NativeContent(json: written) == content)
    }

    @Test func snakeCaseStepKeysAreAccepted() throws {
        let content = try NativeContent(json: json(Self.content("[\(Self.text)]", extra: #","actions":[{"id":"a","label":"A","then":[{"open_path":"/x"}]}]"#)))
        #expect(content.actions?.first?.then == [.openPath("/x")])
        #expect(content.jsonValue(.response)["actions"]?.arrayValue?.first?["then"] == [["openPath": "/x"]])
    }
}

/// The deepest valid definition still parses under the decoder's default JSON depth.
@Suite struct DeepDefinitionTests {
    @Test func fiveChainedScreensThroughNestedCardsDecodeFromBytes() throws {
        let card = { (inner: String) in #"{"type":"card","blocks":[\#(inner)]}"# }
        // The opaque context nests 16 levels: valid, and it takes the document to 65 levels,
        // past a 64-level parser bound.
        let context = String(repeating: #"{"k":"#, count: 16) + "1" + String(repeating: "}", count: 16)
        var surface = #"{"context":\#(context),"blocks":["# + card(card(#"{"type":"fields","fields":[{"id":"r","type":"repeat","fields":[{"id":"s","type":"select","options":[{"value":"v"}]}],"value":[{"s":"v"}]}]}"#)) + "]}"
        for _ in 0..<4 {
            let list = #"{"type":"list","items":[{"title":"t","action":{"id":"a","label":"A","then":[{"showContent":\#(surface)}]}}]}"#
            surface = #"{"blocks":["# + card(card(list)) + "]}"
        }
        let content = try ModelDecoder().decode(NativeContent.self, from: Array(surface.utf8))
        #expect(content.blocks.count == 1)
        #expect(throws: ModelError.self, "the document is deeper than 64") {
            try ModelDecoder(maxDepth: 64).decode(NativeContent.self, from: Array(surface.utf8))
        }
    }
}
