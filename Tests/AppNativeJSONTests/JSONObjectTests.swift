import AppNativeJSON
import Testing

/// `JSONObject`: ordered, unique names compared by Unicode scalars.
@Suite struct JSONObjectTests {
    @Test func emptyObject() {
        let object = JSONObject()
        #expect(object.isEmpty)
        #expect(object.count == 0)
        #expect(object.keys.isEmpty)
        #expect(object["a"] == nil)
        #expect(!object.contains("a"))
        #expect(Array(object).isEmpty)
    }

    @Test func initialiserKeepsOrder() {
        let object = JSONObject([("b", 1), ("a", "x"), ("c", .null)])
        #expect(object.keys == ["b", "a", "c"])
        #expect(object.values == [1, "x", .null])
        #expect(object.count == 3)
        #expect(object["a"] == "x")
        #expect(object["c"] == .null)
        #expect(object.contains("c"))
        #expect(object.map(\.key) == ["b", "a", "c"])
        #expect(object.map(\.value) == [1, "x", .null])
    }

    @Test func literalKeepsOrder() {
        let object: JSONObject = ["z": 1, "y": 2]
        #expect(object.keys == ["z", "y"])
    }

    @Test func settingReplacesInPlaceOrAppends() {
        var object: JSONObject = ["a": 1, "b": 2, "c": 3]
        object["b"] = "two"
        #expect(object.keys == ["a", "b", "c"])
        #expect(object["b"] == "two")
        object["d"] = 4
        #expect(object.keys == ["a", "b", "c", "d"])
        object["a"] = nil
        #expect(object.keys == ["b", "c", "d"])
        #expect(object["a"] == nil)
        object["missing"] = nil
        #expect(object.count == 3)
        object["a"] = 1
        #expect(object.keys == ["b", "c", "d", "a"])
    }

    @Test func duplicateNamesInTheInitialiserTrap() async {
        await #expect(processExitsWith: .failure) {
            _ = JSONObject([("a", 1), ("a", 2)])
        }
    }

    /// `String` equates canonically equivalent text; member names must not.
    @Test func namesCompareByScalarsNotCanonicalEquivalence() {
        var object = JSONObject()
        object["\u{E9}"] = "precomposed"
        object["e\u{301}"] = "decomposed"
        object["\u{212A}"] = "kelvin"
        object["K"] = "latin"
        #expect(object.count == 4)
        #expect(object["\u{E9}"] == "precomposed")
        #expect(object["e\u{301}"] == "decomposed")
        #expect(object["\u{212A}"] == "kelvin")
        #expect(object["K"] == "latin")
        #expect(!JSONObject([("\u{E9}", 1)]).contains("e\u{301}"))
    }

    /// Past sixteen members lookups go through a hash index; behaviour must not change.
    @Test(arguments: [3, 16, 17, 40, 300])
    func largeObjectsBehaveLikeSmallOnes(count: Int) {
        var object = JSONObject()
        for index in 0..<count { object["key\(index)"] = .number(JSONNumber(index)) }
        #expect(object.count == count)
        for index in 0..<count { #expect(object["key\(index)"] == .number(JSONNumber(index))) }
        #expect(object["key\(count)"] == nil)
        object["key0"] = "replaced"
        #expect(object.keys.first == "key0")
        #expect(object["key0"] == "replaced")
        object["key1"] = nil
        #expect(object.count == count - 1)
        #expect(object["key1"] == nil)
        #expect(object["key\(count - 1)"] == .number(JSONNumber(count - 1)))
        #expect(object.keys == ["key0"] + (2..<count).map { "key\($0)" })
        object["e\u{301}"] = 1
        #expect(object["\u{E9}"] == nil)

        let parsed = parseResult(JSONSerializer.serialize(.object(object))).value?.objectValue
        #expect(parsed == object)
        #expect(parsed?.keys == object.keys)
    }

    @Test func equalityIgnoresOrderAndHashAgrees() {
        let forward = JSONObject((0..<30).map { ("k\($0)", .number(JSONNumber($0))) })
        let backward = JSONObject((0..<30).reversed().map { ("k\($0)", .number(JSONNumber($0))) })
        #expect(forward == backward)
        #expect(forward.hashValue == backward.hashValue)
        #expect(Set([JSONValue.object(forward), .object(backward)]).count == 1)
        var changed = backward
        changed["k3"] = "x"
        #expect(forward != changed)
        #expect(JSONObject([("a", 1)]) != JSONObject([("a", 1), ("b", 2)]))
        #expect(JSONObject([("a", 1)]) != JSONObject([("b", 1)]))
    }

    @Test func duplicateCheckAfterUnescaping() {
        #expect(parseResult(#"{"aud":1,"a\u0075d":2}"#).errorCode == .duplicateKey)
        #expect(parseResult(#"{"\u0061":1,"a":2}"#).errorCode == .duplicateKey)
        #expect(parseResult(#"{"a\/b":1,"a/b":2}"#).errorCode == .duplicateKey)
        #expect(parseResult(#"{"😀":1,"\uD83D\uDE00":2}"#).errorCode == .duplicateKey)
        #expect(parseResult(#"{"a":1,"b":2,"a":3}"#).errorCode == .duplicateKey)
        #expect(parseResult(#"{"":1,"":2}"#).errorCode == .duplicateKey)
    }

    @Test func sameNameInDifferentObjectsIsFine() throws {
        let text = #"{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}],"c":{"b":1}}"#
        #expect(parseResult(text).errorCode == nil)
        #expect(parseResult(#"{"a":{"b":1},"a":2}"#).errorCode == .duplicateKey)
        #expect(parseResult(#"{"a":{"b":1,"b":2}}"#).errorCode == .duplicateKey)
    }

    /// Names over sixteen bytes share a print when only their middle differs.
    @Test func longNamesThatDifferInTheMiddleAreDistinct() {
        let object = parseResult(#"{"abcdefgh_X_ijklmnop":1,"abcdefgh_Y_ijklmnop":2}"#).value?.objectValue
        #expect(object?.count == 2)
        #expect(parseResult(#"{"abcdefgh_X_ijklmnop":1,"abcdefgh_X_ijklmnop":2}"#).errorCode == .duplicateKey)
        #expect(parseResult(#"{"abcdefgh_X_ijklmnop":1,"abcdefgh_X_ijklmnoq":2}"#).errorCode == nil)
        #expect(parseResult(#"{"abcdefghXijklmnop":1,"abcdefghX\u0069jklmnop":2}"#).errorCode == .duplicateKey)
    }

    @Test(arguments: [1, 15, 16, 17, 18, 100])
    func duplicatesAreFoundAtEveryObjectSize(count: Int) {
        let members = (0..<count).map { "\"name\($0)\":\($0)" }
        #expect(parseResult("{\(members.joined(separator: ","))}").errorCode == nil)
        for repeated in [0, count / 2, count - 1] {
            let text = "{\(members.joined(separator: ",")),\"name\(repeated)\":0}"
            #expect(parseResult(text).errorCode == .duplicateKey, "\(count) members, repeating \(repeated)")
        }
    }

    @Test func canonicallyEquivalentNamesParseAsDistinct() throws {
        let object = try #require(
            parseResult("{\"\u{E9}\":1,\"e\u{301}\":2,\"\u{212A}\":3,\"K\":4}").value?.objectValue)
        #expect(object.count == 4)
        #expect(object["e\u{301}"] == 2)
        #expect(object["K"] == 4)
    }
}
