import AppNativeJSON
import Testing

@Suite struct JSONErrorTests {
    @Test func equalityComparesCodesOnly() {
        #expect(JSONError(.syntax, "one", offset: 1) == JSONError(.syntax, "two", offset: 9))
        #expect(JSONError(.syntax, "one", offset: 1) != JSONError(.empty, "one", offset: 1))
    }

    @Test func codesHaveStableNames() {
        let codes: [JSONError.Code] = [
            .syntax, .duplicateKey, .tooDeep, .tooLarge, .invalidUTF8, .invalidEscape, .loneSurrogate,
            .invalidNumber, .trailingData, .empty,
        ]
        #expect(
            codes.map(\.description) == [
                "syntax", "duplicate_key", "too_deep", "too_large", "invalid_utf8", "invalid_escape",
                "lone_surrogate", "invalid_number", "trailing_data", "empty",
            ]
        )
        #expect(Set(codes).count == codes.count)
    }

    @Test func errorsCarryOffsetAndThrowingSite() throws {
        let error = try #require(parseResult(#"{"a":1,"b":tru}"#).failure)
        #expect(error.code == .syntax)
        #expect(error.offset == 11)
        #expect(error.file.hasPrefix("AppNativeJSON/"))
        #expect(error.line > 0)
        #expect(error.description == "syntax at byte 11: \(error.reason)")
    }

    @Test(arguments: [
        (#"{"a":1,"a":2}"#, 7), (#"[1,2"#, 4), (#"  [01]"#, 4), (#"["\x"]"#, 2), (#"["\uD800"]"#, 2), (#"[] x"#, 3),
    ])
    func offsetsPointAtTheProblem(text: String, offset: Int) throws {
        #expect(try #require(parseResult(text).failure).offset == offset, "\(text)")
    }

    /// Secret-looking input at the failure point never reaches `reason` or `description`.
    @Test(arguments: [
        #"{"tok":"eyJhbGciOiJSUzI1NiJ9\#u{1}"}"#,
        #"{"eyJhbGciOiJSUzI1NiJ9":1,"eyJhbGciOiJSUzI1NiJ9":2}"#,
        #"["eyJhbGciOiJSUzI1NiJ9\q"]"#,
        #"["eyJhbGciOiJSUzI1NiJ9\uD800"]"#,
        #"[eyJhbGciOiJSUzI1NiJ9]"#,
        #"[1eyJhbGciOiJSUzI1NiJ9]"#,
        #"{"a":1} eyJhbGciOiJSUzI1NiJ9"#,
        #"{"a":"eyJhbGciOiJSUzI1NiJ9"#,
        #"{"eyJhbGciOiJSUzI1NiJ9" 1}"#,
        #"[[[[["eyJhbGciOiJSUzI1NiJ9"]]]]]"#,
    ])
    func reasonsNeverQuoteTheInput(text: String) throws {
        var options = JSONParser.Options()
        options.maxDepth = 4
        let error = try #require(parseResult(text, options: options).failure, "\(text)")
        for fragment in ["eyJ", "hbGci", "SUzI1", "NiJ9"] {
            #expect(!error.reason.contains(fragment), "\(error.code)")
            #expect(!error.description.contains(fragment), "\(error.code)")
            #expect(!String(describing: error).contains(fragment), "\(error.code)")
        }
    }

    @Test func invalidUTF8ReasonDoesNotQuoteBytes() throws {
        let secret = Array("[\"eyJhbGciOi".utf8) + [0xFF] + Array("JSUzI1NiJ9\"]".utf8)
        let error = try #require(parseResult(secret).failure)
        #expect(error.code == .invalidUTF8)
        #expect(error.offset == 12)
        #expect(!error.description.contains("eyJ"))
        #expect(!error.description.lowercased().contains("ff"))
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
