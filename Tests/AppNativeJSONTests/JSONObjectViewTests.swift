import AppNativeJSON
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

/// `JSONObjectView` must accept exactly what `JSONParser` accepts and read the same values.
@Suite(.timeLimit(.minutes(1)))
struct JSONObjectViewTests {
    private func view(_ text: String, options: JSONParser.Options = .init()) -> Result<JSONObjectView?, JSONError> {
        view(Array(text.utf8), options: options)
    }

    private func view(_ bytes: [UInt8], options: JSONParser.Options = .init()) -> Result<JSONObjectView?, JSONError> {
        Result { () throws(JSONError) -> JSONObjectView? in try JSONObjectView.parse(bytes, options: options) }
    }

    /// The view's verdict and object against the parser's, for one document.
    private func expectSameAsParser(
        _ bytes: [UInt8], options: JSONParser.Options = .init(), _ label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let parsed = parseResult(bytes, options: options)
        let viewed = view(bytes, options: options)
        switch (parsed, viewed) {
        case (.success(let value), .success(let view)):
            #expect(view?.object == value.objectValue, "\(label): objects differ", sourceLocation: sourceLocation)
            #expect((view == nil) == (value.objectValue == nil), "\(label)", sourceLocation: sourceLocation)
        case (.failure(let parserError), .failure(let viewError)):
            #expect(parserError.code == viewError.code, "\(label): \(parserError) vs \(viewError)", sourceLocation: sourceLocation)
        default:
            Issue.record("\(label): parser \(parsed), view \(viewed)", sourceLocation: sourceLocation)
        }
    }

    @Test func agreesWithTheParserOnJSONTestSuite() throws {
        for name in try JSONVectors.names(in: "test_parsing") {
            let bytes = try JSONVectors.bytes("test_parsing", name)
            expectSameAsParser(bytes, name)
            // The same document as a member value, first, middle and last, exercises the member reader.
            expectSameAsParser(Array(#"{"k":"#.utf8) + bytes + Array("}".utf8), "\(name) as the only member")
            expectSameAsParser(Array(#"{"a":1,"k":"#.utf8) + bytes + Array(#","z":[2]}"#.utf8), "\(name) between members")
            // And as a member name's place, where only strings are valid.
            expectSameAsParser(Array("{".utf8) + bytes + Array(":0}".utf8), "\(name) as a name")
        }
    }

    @Test func agreesWithTheParserOnEdgeCases() {
        let documents = [
            "{}", " { } ", "{\"a\":1}", "{\"a\":1,}", "{,}", "{\"a\" 1}", "{\"a\":}", "{\"a\":1 \"b\":2}", "{\"a\":1}x",
            "{\"a\":1} ", "\u{FEFF}{}", "{\"a\":1,\"a\":2}", "{\"a\":1,\"\\u0061\":2}", "{\"\\u0061\":1,\"a\":2}",
            "{\"é\":1,\"e\\u0301\":2}", "{\"\":1,\"\":2}", "{\"\":1}", "{\"a\":+1}", "{\"a\":.5}", "{\"a\":01}",
            "{\"a\":-0.5e+10}", "{\"a\":tru}", "{\"a\":nul}", "{\"a\":\"\\ud800\"}", "{\"a\":[1,2,{\"b\":[]}]}",
            "{\"a\":{\"a\":1,\"a\":2}}", "{\"a\":\"x", "{\"a\"", "{", "[{}]", "1", "\"s\"", "null", "",
            "{\"long name over sixteen bytes\":1,\"long name over sixteen bytez\":2}",
            "{\"long name over sixteen bytes\":1,\"long name over sixteen bytes\":2}",
        ]
        for document in documents {
            expectSameAsParser(Array(document.utf8), document)
        }
        expectSameAsParser([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D], "ill-formed UTF-8 in a name")
        expectSameAsParser([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC0, 0xAF, 0x22, 0x7D], "overlong UTF-8 in a value")
    }

    @Test func largeObjectsFindDuplicatesAndMembers() throws {
        for count in [15, 16, 17, 40] {
            let members = (0..<count).map { #""m\#($0)":\#($0)"# }
            let document = "{" + members.joined(separator: ",") + "}"
            expectSameAsParser(Array(document.utf8), "\(count) members")
            let parsed = try #require(try JSONObjectView.parse(Array(document.utf8)))
            #expect(parsed.count == count)
            #expect(parsed.number("m\(count - 1)")?.int64 == Int64(count - 1))
            #expect(parsed["missing"] == nil)
            for duplicate in [0, count - 1] {
                let repeated = "{" + (members + [#""m\#(duplicate)":0"#]).joined(separator: ",") + "}"
                #expect(view(repeated).errorCode == .duplicateKey, "\(count) members, m\(duplicate) repeated")
                let escaped = "{" + (members + [#""\u006d\#(duplicate)":0"#]).joined(separator: ",") + "}"
                #expect(view(escaped).errorCode == .duplicateKey, "\(count) members, m\(duplicate) repeated escaped")
            }
        }
    }

    /// Small objects skip comparing names whose filter bit is new: distinct names that share a bit
    /// must still parse, and every repeat must still be found, wherever it stands.
    @Test func smallObjectsFindEveryDuplicateDespiteTheNameFilter() {
        var generator = SeededGenerator(seed: 0x5EED)
        for round in 0..<1500 {
            let count = 2 + Int(generator.next() % 14)
            var names = Set<String>()
            while names.count < count {
                let length = 1 + Int(generator.next() % 20)
                names.insert(String((0..<length).map { _ in Character(UnicodeScalar(UInt8(97 + generator.next() % 4))) }))
            }
            let ordered = names.sorted()
            let members = ordered.map { #""\#($0)":1"# }
            expectSameAsParser(Array(("{" + members.joined(separator: ",") + "}").utf8), "round \(round): distinct")
            let repeated = ordered[Int(generator.next() % UInt64(count))]
            var withRepeat = members
            withRepeat.insert(#""\#(repeated)":2"#, at: Int(generator.next() % UInt64(count + 1)))
            #expect(
                view("{" + withRepeat.joined(separator: ",") + "}").errorCode == .duplicateKey,
                "round \(round): \(repeated) repeated")
        }
    }

    @Test func readsNumbersAndStringsInPlace() throws {
        let document = #"""
            {"exp":1767225600,"neg":-1.5e3,"big":12345678901234567890,"huge":1e400,"iss":"https://a/b","esc":"https:\/\/a\/b","t":true}
            """#
        let view = try #require(try JSONObjectView.parse(Array(document.utf8)))
        #expect(view.double("exp") == 1_767_225_600)
        #expect(view.double("neg") == -1500)
        #expect(view.double("big") == Double("12345678901234567890")!, "longer than 15 digits: parsed as text")
        #expect(view.double("huge") == nil, "overflows, as JSONNumber.double says")
        #expect(view.double("iss") == nil)
        #expect(view.double("missing") == nil)
        #expect(view.isString("iss") && view.isString("esc"))
        #expect(!view.isString("exp") && !view.isString("t") && !view.isString("missing"))
        let observed1 = unsafe view.withStringBytes("iss") { unsafe String(decoding: $0, as: UTF8.self) } == "https://a/b"
        #expect(observed1)
        let observed2 = unsafe view.withStringBytes("esc") { unsafe String(decoding: $0, as: UTF8.self) } == "https://a/b"
        #expect(observed2, "escapes decoded")
        let observed3 = unsafe view.withStringBytes("exp") { _ in true } == nil
        #expect(observed3)
        let observed4 = unsafe view.withStringBytes("missing") { _ in true } == nil
        #expect(observed4)
    }

    @Test func depthLimitsMatchTheParser() {
        for depth in 0...3 {
            var options = JSONParser.Options()
            options.maxDepth = depth
            for document in ["{}", "{\"a\":1}", "{\"a\":[]}", "{\"a\":[1]}", "{\"a\":{\"b\":[1]}}", "[1]", "1"] {
                expectSameAsParser(Array(document.utf8), options: options, "\(document) at maxDepth \(depth)")
            }
        }
        var small = JSONParser.Options()
        small.maxBytes = 4
        #expect(view("{\"a\":1}", options: small).errorCode == .tooLarge)
    }

    @Test func readsMembersByName() throws {
        let document = #"""
            {"plain":"ada@example.com","esc":"Zo\u00eb \"Q\"","num":1767225600,"neg":-1.5e3,"t":true,"f":false,
             "n":null,"arr":["a","b"],"obj":{"x":[1]},"na\u006de":"named","é":"accent","long name over sixteen bytes":7}
            """#
        let view = try #require(try JSONObjectView.parse(Array(document.utf8)))
        #expect(view.count == 12)
        #expect(view.string("plain") == "ada@example.com")
        #expect(view.string("esc") == "Zoë \"Q\"")
        #expect(view.string("num") == nil)
        #expect(view.number("num")?.int64 == 1_767_225_600)
        #expect(view.number("neg")?.double == -1500)
        #expect(view.number("plain") == nil)
        #expect(view["t"] == .bool(true))
        #expect(view["f"] == .bool(false))
        #expect(view["n"] == .null)
        #expect(view.contains("n"))
        #expect(view["arr"] == .array([.string("a"), .string("b")]))
        #expect(view["obj"] == .object(["x": .array([.number(JSONNumber(1))])]))
        #expect(view.string("name") == "named")
        #expect(view.string("é") == "accent")
        #expect(view.string("e\u{301}") == nil, "names compare by scalars, not canonical equivalence")
        #expect(view.number("long name over sixteen bytes")?.int64 == 7)
        #expect(view.number("long name over sixteen bytez") == nil)
        #expect(!view.contains("missing"))
        #expect(view.object == (try JSONParser().parse(Array(document.utf8))).objectValue)
    }

    @Test func nonObjectsAreValidButNotViews() throws {
        #expect(try JSONObjectView.parse(Array("[1,2]".utf8)) == nil)
        #expect(try JSONObjectView.parse(Array("\"text\"".utf8)) == nil)
        #expect(view("[1,2").errorCode == .syntax)
    }
}

extension Result where Success == JSONObjectView?, Failure == JSONError {
    var errorCode: JSONError.Code? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}

