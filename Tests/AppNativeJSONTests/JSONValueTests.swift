import AppNativeJSON
import Testing

@Suite struct JSONValueTests {
    @Test func accessorsMatchOnlyTheirKind() throws {
        let values: [JSONValue] = [.null, true, 1, "s", [1], ["k": 1]]
        for value in values {
            #expect((value.boolValue != nil) == (value == true))
            #expect((value.numberValue != nil) == (value == 1))
            #expect((value.stringValue != nil) == (value == "s"))
            #expect((value.arrayValue != nil) == (value == [1]))
            #expect((value.objectValue != nil) == (value == ["k": 1]))
            #expect(value.isNull == (value == .null))
        }
        #expect(JSONValue.bool(false).boolValue == false)
        #expect(JSONValue.string("x").stringValue == "x")
        #expect(JSONValue.array([1, 2]).arrayValue == [1, 2])
        #expect(JSONValue.number(JSONNumber(5)).numberValue?.int64 == 5)
    }

    @Test func keySubscriptIsNilUnlessAnObjectHasTheMember() {
        let object: JSONValue = ["aud": "app", "nested": ["x": 1]]
        #expect(object["aud"] == "app")
        #expect(object["nested"]?["x"] == 1)
        #expect(object["missing"] == nil)
        #expect(JSONValue.array(["aud"])["aud"] == nil)
        #expect(JSONValue.string("aud")["aud"] == nil)
        #expect(JSONValue.null["aud"] == nil)
    }

    @Test func literals() throws {
        let value: JSONValue = ["a": [true, false, 1, -2, 1.5, "x"], "b": [:], "c": []]
        let expected = JSONValue.object(
            JSONObject([
                (
                    "a",
                    .array([
                        .bool(true), .bool(false), .number(JSONNumber(1)), .number(JSONNumber(-2)),
                        .number(try #require(JSONNumber(1.5))), .string("x"),
                    ])
                ),
                ("b", .object(JSONObject())),
                ("c", .array([])),
            ])
        )
        #expect(value == expected)
    }

    /// Equal values serialize to the same text up to member order; `String` equality is canonical, this is not.
    @Test func stringsCompareByScalars() {
        #expect(JSONValue.string("\u{E9}") != .string("e\u{301}"))
        #expect(JSONValue.string("\u{212A}") != .string("K"))
        #expect(JSONValue.string("é") == .string("é"))
        #expect(Set<JSONValue>([.string("\u{E9}"), .string("e\u{301}")]).count == 2)
    }

    @Test func kindsNeverCompareEqual() {
        #expect(JSONValue.string("1") != 1)
        #expect(JSONValue.string("true") != true)
        #expect(JSONValue.string("null") != .null)
        #expect(JSONValue.array([]) != .object(JSONObject()))
        #expect(JSONValue.bool(false) != .null)
        #expect(Set<JSONValue>([.null, false, 0, "", [], [:]]).count == 6)
    }
}
