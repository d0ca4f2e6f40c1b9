import AppNativeJSON
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

/// Document structure: one value, whitespace, limits (RFC 8259 §2).
@Suite struct JSONParserTests {
    @Test(arguments: ["", " ", "\t\n\r ", "\n"])
    func inputWithoutAValueIsEmpty(text: String) {
        #expect(parseResult(text).errorCode == .empty)
    }

    @Test func emptyBufferIsEmpty() {
        let result = Result { () throws(JSONError) -> JSONValue in
            unsafe try JSONParser().parse(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        #expect(result.errorCode == .empty)
        #expect(parseResult([UInt8]()).errorCode == .empty)
    }

    @Test(arguments: ["{} x", "1 2", "[] []", "{}}", "[]]", "\"a\" \"b\"", "null,", "true false", "{}\u{0}", "0 /* */"])
    func anythingAfterTheValueIsTrailingData(text: String) {
        #expect(parseResult(text).errorCode == .trailingData, "\(text.debugDescription)")
    }

    @Test(arguments: ["1", "-0.5", "\"s\"", "true", "false", "null", "[]", "{}"])
    func anyValueMayBeTheDocument(text: String) {
        #expect(parseResult(" \(text)\n").errorCode == nil, "\(text)")
    }

    /// RFC 8259 §2: `ws = *( %x20 / %x09 / %x0A / %x0D )` — every other byte is refused there.
    @Test func onlyFourBytesAreWhitespace() {
        let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        for byte in UInt8.min...UInt8.max {
            for document in [[UInt8(ascii: "[")] + [byte] + Array("null]".utf8), [byte] + Array("{}".utf8)] {
                let accepted = parseResult(document).errorCode == nil
                #expect(accepted == whitespace.contains(byte), "byte 0x\(String(byte, radix: 16))")
            }
        }
    }

    @Test(arguments: ["\u{A0}[]", "[]\u{2028}", "\u{FEFF}", "\u{B}[]", "\u{C}[]"])
    func unicodeSpacesAreNotWhitespace(text: String) {
        #expect(parseResult(text).errorCode != nil, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    /// RFC 8259 §8.1: no byte order mark, as bytes or as U+FEFF in a `String`.
    @Test func byteOrderMarkIsRefused() {
        #expect(parseResult([0xEF, 0xBB, 0xBF, 0x7B, 0x7D]).errorCode == .syntax)
        #expect(parseResult([0xEF, 0xBB, 0xBF]).errorCode == .syntax)
        let viaString = Result { () throws(JSONError) -> JSONValue in try JSONParser().parse("\u{FEFF}{}") }
        #expect(viaString.errorCode == .syntax)
    }

    @Test(arguments: [
        "[1,]", "[,1]", "[1 2]", "{\"a\":1,}", "{\"a\" 1}", "{\"a\":}", "{,}", "{1:2}", "{'a':1}", "[", "{", "{\"a\"",
        "{\"a\":", "[1", "[true", "tru", "nul", "False", "NaN", "Infinity", "undefined", "]", "}", ":", ",",
    ])
    func malformedStructureIsASyntaxError(text: String) {
        #expect(parseResult(text).errorCode == .syntax, "\(text)")
    }

    @Test func membersKeepDocumentOrder() throws {
        let object = try #require(parseResult(#"{"z":1,"a":2,"m":3,"b":{"y":1,"x":2}}"#).value?.objectValue)
        #expect(object.keys == ["z", "a", "m", "b"])
        #expect(object["b"]?.objectValue?.keys == ["y", "x"])
    }

    @Test func nestedValuesAreBuiltCorrectly() throws {
        let text = #"{"a":[1,[2,{"b":[]}],{}],"c":{"d":{"e":[null,true,false,"s"]}},"f":-1.5e3}"#
        let value = try #require(parseResult(text).value)
        let expected: JSONValue = [
            "a": [1, [2, ["b": []]], [:]],
            "c": ["d": ["e": [.null, true, false, "s"]]],
            "f": .number(try #require(JSONNumber(text: "-1.5e3"))),
        ]
        #expect(value == expected)
        #expect(JSONSerializer.string(value) == text)
    }

    @Test func jwtClaimsReadBack() throws {
        let text = #"""
            {"iss":"https:\/\/login.example.com\/tenant\/v2.0","sub":"AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ",
            "aud":["app-native","api"],"exp":1767229200,"nbf":1767225600,"iat":1767225600.5,"name":"Zoë \u00e9",
            "email_verified":true,"acr":null}
            """#
        let claims = try #require(parseResult(text).value?.objectValue)
        #expect(claims["iss"]?.stringValue == "https://login.example.com/tenant/v2.0")
        #expect(claims["sub"]?.stringValue?.utf8.count == 43)
        #expect(claims["aud"]?.arrayValue == ["app-native", "api"])
        #expect(claims["exp"]?.numberValue?.int64 == 1_767_229_200)
        #expect(claims["iat"]?.numberValue?.int64 == nil)
        #expect(claims["iat"]?.numberValue?.double == 1_767_225_600.5)
        #expect(claims["name"]?.stringValue == "Zoë é")
        #expect(claims["email_verified"]?.boolValue == true)
        #expect(claims["acr"]?.isNull == true)
        #expect(claims.keys == ["iss", "sub", "aud", "exp", "nbf", "iat", "name", "email_verified", "acr"])
    }

    /// The parser is not incremental, so instead of every split this checks every truncation:
    /// a cut document must fail cleanly, never parse as something else.
    @Test func everyTruncationFails() {
        let text = #"{"a":[1,-2.5e3,true,false,null,"s\n\u00e9😀",{"b":{}}],"c":"x"}"#
        let bytes = Array(text.utf8)
        #expect(parseResult(bytes).errorCode == nil)
        for length in 0..<bytes.count {
            #expect(parseResult(Array(bytes[..<length])).errorCode != nil, "prefix of \(length) bytes")
        }
    }

    @Test func allOverloadsAgree() throws {
        let text = #"{"k":["v",1,true]}"#
        let fromString = try JSONParser().parse(text)
        let fromArray = try JSONParser().parse(Array(text.utf8))
        let fromBuffer = unsafe try Array(text.utf8).withUnsafeBytes { raw in
            try Result { () throws(JSONError) -> JSONValue in unsafe try JSONParser().parse(raw) }.get()
        }
        #expect(fromString == fromArray)
        #expect(fromArray == fromBuffer)
    }

    @Test func parsesASliceOfALargerBuffer() throws {
        let bytes = Array("xx[1,2]yy".utf8)
        let value = unsafe try bytes.withUnsafeBytes { raw in
            try Result { () throws(JSONError) -> JSONValue in
                unsafe try JSONParser().parse(UnsafeRawBufferPointer(rebasing: raw[2..<7]))
            }.get()
        }
        #expect(value == [1, 2])
    }
}

/// Nesting depth and input size limits.
@Suite(.timeLimit(.minutes(1)))
struct JSONParserLimitTests {
    private func nested(_ depth: Int, open: String = "[", close: String = "]", inner: String = "") -> String {
        String(repeating: open, count: depth) + inner + String(repeating: close, count: depth)
    }

    @Test func fiveThousandNestedArraysAreTooDeep() {
        #expect(parseResult(nested(5000)).errorCode == .tooDeep)
        #expect(parseResult(String(repeating: "[", count: 5000)).errorCode == .tooDeep)
    }

    @Test func fiveThousandNestedObjectsAreTooDeep() {
        #expect(parseResult(nested(5000, open: #"{"a":"#, close: "}", inner: "1")).errorCode == .tooDeep)
        #expect(parseResult(String(repeating: #"{"a":["#, count: 5000)).errorCode == .tooDeep)
    }

    @Test func deepInputFailsWithTheLargestSupportedDepthToo() {
        var options = JSONParser.Options()
        options.maxDepth = JSONParser.maxSupportedDepth
        #expect(parseResult(nested(5000), options: options).errorCode == .tooDeep)
        #expect(parseResult(nested(JSONParser.maxSupportedDepth), options: options).errorCode == nil)
    }

    @Test(arguments: [0, 1, 2, 32, 64])
    func depthLimitIsExact(limit: Int) {
        var options = JSONParser.Options()
        options.maxDepth = limit
        for depth in [limit, limit + 1] {
            let arrays = nested(depth, inner: "1")
            let objects = nested(depth, open: #"{"k":"#, close: "}", inner: "1")
            let expected: JSONError.Code? = depth > limit ? .tooDeep : nil
            #expect(parseResult(arrays, options: options).errorCode == expected, "arrays \(depth) / \(limit)")
            #expect(parseResult(objects, options: options).errorCode == expected, "objects \(depth) / \(limit)")
        }
        #expect(parseResult("[]", options: options).errorCode == (limit == 0 ? .tooDeep : nil))
        #expect(parseResult("{}", options: options).errorCode == (limit == 0 ? .tooDeep : nil))
        #expect(parseResult("1", options: options).errorCode == nil)
    }

    @Test func siblingsDoNotAddDepth() {
        var options = JSONParser.Options()
        options.maxDepth = 2
        #expect(parseResult("[[1],[2],[3],{\"a\":1},{},[]]", options: options).errorCode == nil)
        #expect(parseResult("[[1],[2],[[3]]]", options: options).errorCode == .tooDeep)
        // An empty container is a level too.
        #expect(parseResult("[{\"a\":[]}]", options: options).errorCode == .tooDeep)
    }

    @Test func sizeLimitIsCheckedBeforeParsing() {
        var options = JSONParser.Options()
        options.maxBytes = 8
        #expect(parseResult("[1,2,3] ", options: options).errorCode == nil)
        #expect(parseResult("[1,2,3]  ", options: options).errorCode == .tooLarge)
        // Invalid content beyond the limit is never looked at.
        #expect(parseResult("\u{1}\u{1}\u{1}\u{1}\u{1}\u{1}\u{1}\u{1}\u{1}", options: options).errorCode == .tooLarge)
        #expect(parseResult([UInt8](repeating: 0xFF, count: 9), options: options).errorCode == .tooLarge)
        let viaString = Result { () throws(JSONError) -> JSONValue in
            try JSONParser(options: options).parse("[1,2,3]  ")
        }
        #expect(viaString.errorCode == .tooLarge)
    }

    @Test func defaultsAreDocumented() {
        let options = JSONParser.Options()
        #expect(options.maxDepth == 64)
        #expect(options.maxBytes == 1 << 24)
        #expect(!options.allowsLoneSurrogates)
    }

    @Test func depthOutsideTheSupportedRangeTraps() async {
        await #expect(processExitsWith: .failure) {
            var options = JSONParser.Options()
            options.maxDepth = JSONParser.maxSupportedDepth + 1
            _ = JSONParser(options: options)
        }
        await #expect(processExitsWith: .failure) {
            var options = JSONParser.Options()
            options.maxBytes = -1
            _ = JSONParser(options: options)
        }
    }

    @Test func wideObjectsParseInLinearTime() throws {
        // A quadratic duplicate check would take minutes here; the suite's time limit catches it.
        let count = 200_000
        var text = "{"
        for index in 0..<count {
            if index > 0 { text += "," }
            text += "\"k\(index)\":\(index)"
        }
        text += "}"
        let object = try #require(parseResult(text).value?.objectValue)
        #expect(object.count == count)
        #expect(object["k199999"] == 199_999)
        #expect(parseResult(String(text.dropLast()) + ",\"k123456\":0}").errorCode == .duplicateKey)
    }
}
