import AppNativeJSON
import AppNativeModels
import Testing

/// Native forms (`contract/models.md` §3.1): every rule and `MAX_*` at and one past its value.
@Suite struct NativeFormTests {
    static func options(_ count: Int) -> String {
        "[" + (0..<count).map { #"{"value":"o\#($0)"}"# }.joined(separator: ",") + "]"
    }

    static func pages(_ count: Int) -> String {
        "[" + (0..<count).map { #"{"fields":[{"id":"p\#($0)"}]}"# }.joined(separator: ",") + "]"
    }

    static func rows(_ count: Int) -> String { repeated(#"{"i":"x"}"#, count) }

    static let cases: [RuleCase] = [
        RuleCase("minimal form", #"{"fields":[{"id":"a"}]}"#, .valid),
        RuleCase("id empty", #"{"id":"","fields":[{"id":"a"}]}"#, .invalid(["id"])),
        RuleCase("tint #rrggbb", ##"{"tint":"#A0b1C2","fields":[{"id":"a"}]}"##, .valid),
        RuleCase("tint short", ##"{"tint":"#abc","fields":[{"id":"a"}]}"##, .invalid(["tint"])),
        RuleCase("tint not hex", ##"{"tint":"#12345g","fields":[{"id":"a"}]}"##, .invalid(["tint"])),
        RuleCase("tint trailing newline", ##"{"tint":"#123456\n","fields":[{"id":"a"}]}"##, .invalid(["tint"])),
        RuleCase("size unknown", #"{"size":"tiny","fields":[{"id":"a"}]}"#, .invalid(["size"])),
        RuleCase("context not object", #"{"context":"x","fields":[{"id":"a"}]}"#, .invalid(["context"])),
        RuleCase("submit style secondary", #"{"submit":{"style":"secondary"},"fields":[{"id":"a"}]}"#, .invalid(["submit", "style"])),
        RuleCase("fields and pages both", #"{"fields":[{"id":"a"}],"pages":[{"fields":[{"id":"b"}]}]}"#, .invalid([])),
        RuleCase("duplicate ids", #"{"fields":[{"id":"a"},{"id":"a"}]}"#, .invalid(["fields", 1, "id"])),
        RuleCase("visibleIf to itself", #"{"fields":[{"id":"a","visibleIf":{"field":"a"}}]}"#, .invalid(["fields", 0, "visibleIf", "field"])),
        RuleCase("10 pages", #"{"pages":"# + pages(10) + "}", .valid),
        RuleCase("11 pages", #"{"pages":"# + pages(11) + "}", .tooLarge(["pages"])),
        RuleCase("60 fields", #"{"fields":"# + fieldsJSON(60) + "}", .valid),
        RuleCase("61 fields", #"{"fields":"# + fieldsJSON(61) + "}", .tooLarge([])),
        RuleCase("61 fields across pages", #"{"pages":[{"fields":"# + fieldsJSON(30) + #"},{"fields":"# + fieldsJSON(31).replacingF("g") + "}]}", .tooLarge([])),
        RuleCase("repeat counts once", #"{"fields":"# + String(fieldsJSON(59).dropLast()) + #",{"id":"r","type":"repeat","fields":"# + fieldsJSON(10).replacingF("i") + "}]}", .valid),
        RuleCase("200 options", #"{"fields":[{"id":"s","type":"select","options":"# + options(200) + "}]}", .valid),
        RuleCase("201 options", #"{"fields":[{"id":"s","type":"select","options":"# + options(201) + "}]}", .tooLarge(["fields", 0, "options"])),
        RuleCase("201 options in repeat", #"{"fields":[{"id":"r","type":"repeat","fields":[{"id":"s","type":"select","options":"# + options(201) + "}]}]}", .tooLarge(["fields", 0, "fields", 0, "options"])),
        RuleCase("select without options", #"{"fields":[{"id":"s","type":"select"}]}"#, .invalid(["fields", 0, "options"])),
        RuleCase("select with empty options", #"{"fields":[{"id":"s","type":"select","options":[]}]}"#, .invalid(["fields", 0, "options"])),
        RuleCase("select remote false", #"{"fields":[{"id":"s","type":"select","remote":false}]}"#, .invalid(["fields", 0, "options"])),
        RuleCase("select remote", #"{"fields":[{"id":"s","type":"select","remote":true}]}"#, .valid),
        RuleCase("select in repeat without options", #"{"fields":[{"id":"r","type":"repeat","fields":[{"id":"s","type":"select"}]}]}"#, .invalid(["fields", 0, "fields", 0, "options"])),
        RuleCase("repeat max 51", #"{"fields":[{"id":"r","type":"repeat","max":51,"fields":[{"id":"i"}]}]}"#, .tooLarge(["fields", 0, "max"])),
        RuleCase("repeat 11 inner fields", #"{"fields":[{"id":"r","type":"repeat","fields":"# + fieldsJSON(11) + "}]}", .invalid(["fields", 0, "fields"])),
        RuleCase("values: 50 repeat rows", #"{"fields":[{"id":"r","type":"repeat","fields":[{"id":"i"}]}],"values":{"r":"# + rows(50) + "}}", .valid),
        RuleCase("values: 51 repeat rows", #"{"fields":[{"id":"r","type":"repeat","fields":[{"id":"i"}]}],"values":{"r":"# + rows(51) + "}}", .tooLarge(["values", "r"])),
        RuleCase("values: 51 rows for a non-repeat field", #"{"fields":[{"id":"r"}],"values":{"r":"# + rows(51) + "}}", .valid),
        RuleCase("values: 51 rows on a page's repeat", #"{"pages":[{"fields":[{"id":"r","type":"repeat","fields":[{"id":"i"}]}]}],"values":{"r":"# + rows(51) + "}}", .tooLarge(["values", "r"])),
    ]

    @Test(arguments: cases)
    func formRule(_ rule: RuleCase) {
        rule.check(NativeForm.self)
    }

    static let baseForm = #"{"text":"","fields":[{"id":"a"}]}"#

    /// The base form with `count` copies of `filler` as its text.
    static func form(filler: String, count: Int) -> JSONValue {
        ["text": .string(String(repeating: filler, count: count)), "fields": [["id": "a"]]]
    }

    @Test(arguments: ["x", "é", "€"])
    func definitionSizeAtAndOverTheLimit(_ filler: String) throws {
        let limit = ModelLimits.maxSurfaceDefinitionBytes
        #expect(limit == 262_144)
        let base = pythonDumps(try NativeForm(json: json(Self.baseForm)).jsonValue(.response)).utf8.count
        let fill = filler.utf8.count
        let count = (limit - base) / fill
        let at = Self.form(filler: filler, count: count)
        let atSize = pythonDumps(try NativeForm(json: at).jsonValue(.response)).utf8.count
        #expect(atSize <= limit && atSize > limit - fill, "filler \(filler): \(atSize) bytes")
        if fill == 1 { #expect(atSize == limit, "exactly the limit") }
        #expect(modelError(NativeForm.self, at) == nil, "filler \(filler): \(atSize) bytes is valid")
        let error = try #require(modelError(NativeForm.self, Self.form(filler: filler, count: count + 1)),
            "filler \(filler): over the limit must fail")
        #expect(error.isTooLarge, "filler \(filler)")
        #expect(error.issues.map(\.path) == [[]], "filler \(filler): one issue at the root, got \(error.issues)")
    }

    @Test func definitionSizeCountsPythonSeparatorsNotCompactJSON() throws {
        // A form whose compact JSON is under the limit while the `", "`/`": "` spelling is over.
        let limit = ModelLimits.maxSurfaceDefinitionBytes
        let baseForm = try NativeForm(json: json(Self.baseForm)).jsonValue(.response)
        let compact = JSONSerializer.serialize(baseForm).count
        let python = pythonDumps(baseForm).utf8.count
        #expect(python > compact, "separators add bytes")
        let form = Self.form(filler: "x", count: limit - python + 1)
        #expect(JSONSerializer.serialize(try NativeForm(json: Self.form(filler: "x", count: 0)).jsonValue(.response)).count
            + limit - python + 1 <= limit, "compact spelling stays under the limit")
        #expect(modelError(NativeForm.self, form)?.isTooLarge == true)
    }

    @Test func pythonDumpsHelperMatchesPythonSpelling() {
        #expect(pythonDumps(json(#"{"a":[1,2],"b":{"c":"é"}}"#)) == #"{"a": [1, 2], "b": {"c": "é"}}"#)
    }

    @Test func roundTripKeepsTheDefinition() throws {
        let text = ##"{"id":"f1","title":"T","size":"fit","tint":"#112233","context":{"k":[1]},"text":"x","values":{"a":"b"},"pages":[{"title":"p","fields":[{"id":"a","type":"multiselect","options":[{"value":"b"}]}]}],"submit":{"label":"Go","style":"destructive","wait":true}}"##
        let form = try NativeForm(json: json(text))
        #expect(numericallyEqual(form.jsonValue(.presentKeysOnly), json(text)))
        #expect(try NativeForm(json: form.jsonValue(.response)) == NativeForm(json: form.jsonValue(.response)))
    }
}

/// Python's default `json.dumps(…, ensure_ascii=False)` spelling, written independently of the
/// module's measure: `", "` between elements and `": "` after names.
func pythonDumps(_ value: JSONValue) -> String {
    switch value {
    case .array(let elements): "[" + elements.map(pythonDumps).joined(separator: ", ") + "]"
    case .object(let object):
        "{" + object.map { JSONSerializer.string(.string($0.key)) + ": " + pythonDumps($0.value) }.joined(separator: ", ") + "}"
    default: JSONSerializer.string(value)
    }
}

extension String {
    /// `fieldsJSON` ids with another prefix, so two lists do not collide.
    func replacingF(_ prefix: String) -> String {
        split(separator: "\"f", omittingEmptySubsequences: false).joined(separator: "\"\(prefix)")
    }

}
