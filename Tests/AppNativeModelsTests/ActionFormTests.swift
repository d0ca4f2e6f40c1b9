import AppNativeJSON
import AppNativeModels
import Testing

/// Action forms (`contract/models.md` §2): every field rule of the §2.2 table, at and one past each bound.
@Suite struct ActionFormTests {
    static func field(_ members: String) -> String { #"{"id":"f""# + (members.isEmpty ? "" : "," + members) + "}" }

    static let inner = #"{"id":"i0","type":"text"}"#
    static func innerFields(_ count: Int) -> String {
        "[" + (0..<count).map { #"{"id":"i\#($0)"}"# }.joined(separator: ",") + "]"
    }

    static let fieldCases: [RuleCase] = [
        RuleCase("plain text field", field(""), .valid),
        RuleCase("id empty", #"{"id":""}"#, .invalid(["id"])),
        RuleCase("type unknown", field(#""type":"slider""#), .invalid(["type"])),
        RuleCase("repeat without fields", field(#""type":"repeat""#), .invalid(["fields"])),
        RuleCase("repeat fields null", field(#""type":"repeat","fields":null"#), .invalid(["fields"])),
        RuleCase("repeat fields empty", field(#""type":"repeat","fields":[]"#), .invalid(["fields"])),
        RuleCase("repeat 1 field", field(#""type":"repeat","fields":"# + innerFields(1)), .valid),
        RuleCase("repeat 10 fields", field(#""type":"repeat","fields":"# + innerFields(10)), .valid),
        RuleCase("repeat 11 fields is invalid not tooLarge", field(#""type":"repeat","fields":"# + innerFields(11)), .invalid(["fields"])),
        RuleCase("repeat inner photo", field(#""type":"repeat","fields":[{"id":"p","type":"photo"}]"#), .invalid(["fields", 0, "type"])),
        RuleCase("repeat nested repeat", field(#""type":"repeat","fields":[{"id":"r","type":"repeat","fields":[{"id":"x"}]}]"#), .invalid(["fields", 0, "type"])),
        RuleCase("repeat inner stepper allowed", field(#""type":"repeat","fields":[{"id":"s","type":"stepper"}]"#), .valid),
        RuleCase("repeat inner visibleIf", field(#""type":"repeat","fields":[{"id":"a"},{"id":"b","visibleIf":{"field":"a"}}]"#), .invalid(["fields", 1, "visibleIf"])),
        RuleCase("repeat inner duplicate ids", field(#""type":"repeat","fields":[{"id":"a"},{"id":"a"}]"#), .invalid(["fields", 1, "id"])),
        RuleCase("repeat max 50", field(#""type":"repeat","max":50,"fields":"# + innerFields(1)), .valid),
        RuleCase("repeat max 51 is tooLarge", field(#""type":"repeat","max":51,"fields":"# + innerFields(1)), .tooLarge(["max"])),
        RuleCase("text with fields []", field(#""type":"text","fields":[]"#), .invalid(["fields"])),
        RuleCase("multiselect without options", field(#""type":"multiselect""#), .invalid(["options"])),
        RuleCase("multiselect empty options", field(#""type":"multiselect","options":[]"#), .invalid(["options"])),
        RuleCase("segmented with options", field(#""type":"segmented","options":[{"value":"a"}]"#), .valid),
        RuleCase("segmented options null", field(#""type":"segmented","options":null"#), .invalid(["options"])),
        RuleCase("widget select needs no options", field(#""type":"select""#), .valid),
        RuleCase("photo max 0", field(#""type":"photo","max":0"#), .invalid(["max"])),
        RuleCase("photo max 1", field(#""type":"photo","max":1"#), .valid),
        RuleCase("photo max 10", field(#""type":"photo","max":10"#), .valid),
        RuleCase("photo max 11 is invalid not tooLarge", field(#""type":"photo","max":11"#), .invalid(["max"])),
        RuleCase("scan max 0", field(#""type":"scan","max":0"#), .invalid(["max"])),
        RuleCase("scan max 20", field(#""type":"scan","max":20"#), .valid),
        RuleCase("scan max 21 is invalid not tooLarge", field(#""type":"scan","max":21"#), .invalid(["max"])),
        RuleCase("min greater than max", field(#""type":"number","min":5,"max":4"#), .invalid([])),
        RuleCase("min equal max", field(#""type":"number","min":4,"max":4"#), .valid),
        RuleCase("minLength greater than maxLength", field(#""minLength":5,"maxLength":4"#), .invalid([])),
        RuleCase("minQueryLength -1", field(#""type":"search","minQueryLength":-1"#), .invalid(["minQueryLength"])),
        RuleCase("minQueryLength 0", field(#""type":"search","minQueryLength":0"#), .valid),
        RuleCase("minLength -1", field(#""minLength":-1"#), .invalid(["minLength"])),
        RuleCase("minLength 0", field(#""minLength":0"#), .valid),
        RuleCase("maxLength 0", field(#""maxLength":0"#), .invalid(["maxLength"])),
        RuleCase("maxLength 1", field(#""maxLength":1"#), .valid),
        RuleCase("step 0", field(#""type":"stepper","step":0"#), .invalid(["step"])),
        RuleCase("step 1", field(#""type":"stepper","step":1"#), .valid),
        RuleCase("step 1.5", field(#""type":"stepper","step":1.5"#), .invalid(["step"])),
        RuleCase("maxDimension 255", field(#""type":"photo","maxDimension":255"#), .invalid(["maxDimension"])),
        RuleCase("maxDimension 256", field(#""type":"photo","maxDimension":256"#), .valid),
        RuleCase("maxDimension 4096", field(#""type":"photo","maxDimension":4096"#), .valid),
        RuleCase("maxDimension 4097", field(#""type":"photo","maxDimension":4097"#), .invalid(["maxDimension"])),
        RuleCase("source unknown", field(#""type":"photo","source":"drive""#), .invalid(["source"])),
        RuleCase("format png", field(#""type":"scan","format":"png""#), .invalid(["format"])),
        RuleCase("symbology unknown", field(#""type":"barcode","symbologies":["qr","ean99"]"#), .invalid(["symbologies", 1])),
        RuleCase("value list of strings", field(#""type":"multiselect","options":[{"value":"a"}],"value":["a"]"#), .valid),
        RuleCase("value list of rows", field(#""type":"repeat","fields":[{"id":"i"}],"value":[{"i":"x"}]"#), .valid),
        RuleCase("value mixed list", field(#""value":["a",{"i":1}]"#), .invalid(["value"])),
        RuleCase("value object", field(#""value":{"a":1}"#), .invalid(["value"])),
        RuleCase("visibleIf field empty", field(#""visibleIf":{"field":""}"#), .invalid(["visibleIf", "field"])),
        RuleCase("visibleIf equals object", field(#""visibleIf":{"field":"x","equals":{}}"#), .invalid(["visibleIf", "equals"])),
        RuleCase("option value missing", field(#""type":"select","options":[{"label":"A"}]"#), .invalid(["options", 0, "value"])),
    ]

    @Test(arguments: fieldCases)
    func fieldRule(_ rule: RuleCase) {
        rule.check(ActionField.self)
    }

    static let formCases: [RuleCase] = [
        RuleCase("fields and pages both", #"{"fields":[{"id":"a"}],"pages":[{"fields":[{"id":"b"}]}],"buttons":[{"id":"s","label":"S"}]}"#, .invalid([])),
        RuleCase("fields empty and pages", #"{"fields":[],"pages":[{"fields":[{"id":"b"}]}],"buttons":[{"id":"s","label":"S"}]}"#, .valid),
        RuleCase("pages empty", #"{"pages":[],"buttons":[{"id":"s","label":"S"}]}"#, .invalid(["pages"])),
        RuleCase("page without fields", #"{"pages":[{"title":"x","fields":[]}],"buttons":[{"id":"s","label":"S"}]}"#, .invalid(["pages", 0, "fields"])),
        RuleCase("duplicate ids across pages", #"{"pages":[{"fields":[{"id":"a"}]},{"fields":[{"id":"a"}]}],"buttons":[{"id":"s","label":"S"}]}"#, .invalid(["pages", 1, "fields", 0, "id"])),
        RuleCase("visibleIf names itself", #"{"fields":[{"id":"a","visibleIf":{"field":"a"}}],"buttons":[{"id":"s","label":"S"}]}"#, .invalid(["fields", 0, "visibleIf", "field"])),
        RuleCase("visibleIf names unknown field", #"{"fields":[{"id":"a","visibleIf":{"field":"zz"}}],"buttons":[{"id":"s","label":"S"}]}"#, .invalid(["fields", 0, "visibleIf", "field"])),
        RuleCase("visibleIf names field on another page", #"{"pages":[{"fields":[{"id":"a","type":"toggle"}]},{"fields":[{"id":"b","visibleIf":{"field":"a","equals":true}}]}],"buttons":[{"id":"s","label":"S"}]}"#, .valid),
        RuleCase("visibleIf equals list", #"{"fields":[{"id":"a"},{"id":"b","visibleIf":{"field":"a","equals":["x",1,true]}}],"buttons":[{"id":"s","label":"S"}]}"#, .valid),
        RuleCase("buttons missing", #"{"text":"x"}"#, .invalid(["buttons"])),
        RuleCase("button style unknown", #"{"buttons":[{"id":"s","label":"S","style":"loud"}]}"#, .invalid(["buttons", 0, "style"])),
    ]

    @Test(arguments: formCases)
    func formRule(_ rule: RuleCase) {
        rule.check(ActionData.self)
    }

    @Test func allFieldIssuesComeInOnePass() {
        let found = issues(ActionField.self, json(#"{"id":"","type":"photo","max":11,"maxDimension":1,"step":0,"minLength":3,"maxLength":2}"#))
        let paths = Set(found.map(\.pathDescription))
        #expect(paths.isSuperset(of: ["id", "max", "maxDimension", "step"]), "\(found.map(\.description))")
    }

    @Test func fieldTypeDefaultsToTextAndIsWritten() throws {
        let field = try ActionField(json: json(#"{"id":"a"}"#))
        #expect(field.effectiveType == .text)
        #expect(field.jsonValue(.response)["type"] == "text")
        #expect(field.jsonValue(.presentKeysOnly)["type"] == nil)
    }
}
