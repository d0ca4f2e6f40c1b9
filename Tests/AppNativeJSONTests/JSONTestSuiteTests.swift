import AppNativeJSON
import Foundation
import Testing

/// JSONTestSuite (nst/JSONTestSuite, MIT): every `y_` parses, every `n_` fails, every `i_` has
/// the pinned verdict of `Fixtures/vectors/json/VERDICTS.md`. Failures name the file.
@Suite(.timeLimit(.minutes(1)))
struct JSONTestSuiteTests {
    /// `y_` files this parser deliberately refuses: duplicate names (see VERDICTS.md).
    static let refusedValidFiles: [String: JSONError.Code] = [
        "y_object_duplicated_key.json": .duplicateKey,
        "y_object_duplicated_key_and_value.json": .duplicateKey,
    ]

    /// The pinned verdict for each `i_` file under the default options: `nil` means accepted.
    static let implementationDefined: [String: JSONError.Code?] = [
        "i_number_double_huge_neg_exp.json": nil,
        "i_number_huge_exp.json": nil,
        "i_number_neg_int_huge_exp.json": nil,
        "i_number_pos_double_huge_exp.json": nil,
        "i_number_real_neg_overflow.json": nil,
        "i_number_real_pos_overflow.json": nil,
        "i_number_real_underflow.json": nil,
        "i_number_too_big_neg_int.json": nil,
        "i_number_too_big_pos_int.json": nil,
        "i_number_very_big_negative_int.json": nil,
        "i_object_key_lone_2nd_surrogate.json": .loneSurrogate,
        "i_string_1st_surrogate_but_2nd_missing.json": .loneSurrogate,
        "i_string_1st_valid_surrogate_2nd_invalid.json": .loneSurrogate,
        "i_string_UTF-16LE_with_BOM.json": .invalidUTF8,
        "i_string_UTF-8_invalid_sequence.json": .invalidUTF8,
        "i_string_UTF8_surrogate_U+D800.json": .invalidUTF8,
        "i_string_incomplete_surrogate_and_escape_valid.json": .loneSurrogate,
        "i_string_incomplete_surrogate_pair.json": .loneSurrogate,
        "i_string_incomplete_surrogates_escape_valid.json": .loneSurrogate,
        "i_string_invalid_lonely_surrogate.json": .loneSurrogate,
        "i_string_invalid_surrogate.json": .loneSurrogate,
        "i_string_invalid_utf-8.json": .invalidUTF8,
        "i_string_inverted_surrogates_U+1D11E.json": .loneSurrogate,
        "i_string_iso_latin_1.json": .invalidUTF8,
        "i_string_lone_second_surrogate.json": .loneSurrogate,
        "i_string_lone_utf8_continuation_byte.json": .invalidUTF8,
        "i_string_not_in_unicode_range.json": .invalidUTF8,
        "i_string_overlong_sequence_2_bytes.json": .invalidUTF8,
        "i_string_overlong_sequence_6_bytes.json": .invalidUTF8,
        "i_string_overlong_sequence_6_bytes_null.json": .invalidUTF8,
        "i_string_truncated-utf-8.json": .invalidUTF8,
        "i_string_utf16BE_no_BOM.json": .invalidUTF8,
        "i_string_utf16LE_no_BOM.json": .invalidUTF8,
        "i_structure_500_nested_arrays.json": .tooDeep,
        "i_structure_UTF-8_BOM_empty_object.json": .syntax,
    ]

    @Test func corpusIsComplete() throws {
        let names = try JSONVectors.names(in: "test_parsing")
        #expect(names.count == 318)
        #expect(names.filter { $0.hasPrefix("y_") }.count == 95)
        #expect(names.filter { $0.hasPrefix("n_") }.count == 188)
        #expect(Set(names.filter { $0.hasPrefix("i_") }) == Set(Self.implementationDefined.keys))
        #expect(try JSONVectors.names(in: "test_transform").count == 22)
    }

    @Test func validFilesParse() throws {
        for name in try JSONVectors.names(in: "test_parsing") where name.hasPrefix("y_") {
            let result = parseResult(try JSONVectors.bytes("test_parsing", name))
            if let refused = Self.refusedValidFiles[name] {
                #expect(result.errorCode == refused, "\(name): deliberately refused with \(refused)")
            } else {
                #expect(result.errorCode == nil, "\(name): must parse, got \(String(describing: result.errorCode))")
            }
        }
    }

    @Test func invalidFilesFail() throws {
        for name in try JSONVectors.names(in: "test_parsing") where name.hasPrefix("n_") {
            let result = parseResult(try JSONVectors.bytes("test_parsing", name))
            #expect(result.errorCode != nil, "\(name): must fail but parsed")
        }
    }

    @Test func implementationDefinedFilesHavePinnedVerdicts() throws {
        for name in try JSONVectors.names(in: "test_parsing") where name.hasPrefix("i_") {
            let expected = try #require(Self.implementationDefined[name], "\(name): no pinned verdict")
            let result = parseResult(try JSONVectors.bytes("test_parsing", name))
            #expect(
                result.errorCode == expected, "\(name): expected \(expected.map(String.init(describing:)) ?? "accept")")
        }
    }

    /// Ill-formed UTF-8 anywhere in the input is always reported as such, and only then.
    @Test func encodingErrorsWinOverOtherErrors() throws {
        for name in try JSONVectors.names(in: "test_parsing") where !name.hasPrefix("y_") {
            let bytes = try JSONVectors.bytes("test_parsing", name)
            let isWellFormed = String(validating: bytes, as: UTF8.self) != nil
            let code = parseResult(bytes).errorCode
            if isWellFormed {
                #expect(code != .invalidUTF8, "\(name): well-formed input reported as invalid UTF-8")
            } else {
                #expect(code == .invalidUTF8, "\(name): ill-formed input reported as \(String(describing: code))")
            }
        }
    }

    /// VERDICTS.md is the documentation of the table above; it must say the same thing.
    @Test func verdictsDocumentMatchesTheTable() throws {
        var documented: [String: String] = [:]
        for line in try JSONVectors.verdictsDocument().split(separator: "\n") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, cells[0].hasPrefix("`i_") || cells[0].hasPrefix("`y_") else { continue }
            documented[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = cells[1]
        }
        var expected: [String: String] = [:]
        for (name, code) in Self.implementationDefined {
            expected[name] = code.map { "reject: \($0)" } ?? "accept"
        }
        for (name, code) in Self.refusedValidFiles {
            expected[name] = "reject: \(code)"
        }
        #expect(documented == expected)
    }

    @Test func numbersOutsideDoubleRangeKeepTheirText() throws {
        let overflows = [
            "i_number_huge_exp.json", "i_number_neg_int_huge_exp.json", "i_number_pos_double_huge_exp.json",
            "i_number_real_neg_overflow.json", "i_number_real_pos_overflow.json",
        ]
        for name in overflows {
            let number = try #require(
                parseResult(try JSONVectors.bytes("test_parsing", name)).value?.arrayValue?.first?.numberValue,
                "\(name)")
            #expect(number.double == nil, "\(name): overflow must read as nil")
            #expect(number.int64 == nil, "\(name)")
            #expect(!number.text.isEmpty, "\(name)")
        }
        for name in ["i_number_double_huge_neg_exp.json", "i_number_real_underflow.json"] {
            let number = try #require(
                parseResult(try JSONVectors.bytes("test_parsing", name)).value?.arrayValue?.first?.numberValue,
                "\(name)")
            #expect(number.double == 0, "\(name): underflow reads as zero")
        }
        for name in [
            "i_number_too_big_neg_int.json", "i_number_too_big_pos_int.json", "i_number_very_big_negative_int.json",
        ] {
            let number = try #require(
                parseResult(try JSONVectors.bytes("test_parsing", name)).value?.arrayValue?.first?.numberValue,
                "\(name)")
            #expect(number.int64 == nil, "\(name): outside Int64")
            #expect(number.double?.isFinite == true, "\(name)")
        }
    }

    @Test func loneSurrogateFilesParseWhenAllowed() throws {
        var options = JSONParser.Options()
        options.allowsLoneSurrogates = true
        let expected: [String: String] = [
            "i_string_1st_surrogate_but_2nd_missing.json": "\u{FFFD}",
            "i_string_1st_valid_surrogate_2nd_invalid.json": "\u{FFFD}\u{1234}",
            "i_string_incomplete_surrogate_and_escape_valid.json": "\u{FFFD}\n",
            "i_string_incomplete_surrogate_pair.json": "\u{FFFD}a",
            "i_string_incomplete_surrogates_escape_valid.json": "\u{FFFD}\u{FFFD}\n",
            "i_string_invalid_lonely_surrogate.json": "\u{FFFD}",
            "i_string_invalid_surrogate.json": "\u{FFFD}abc",
            "i_string_inverted_surrogates_U+1D11E.json": "\u{FFFD}\u{FFFD}",
            "i_string_lone_second_surrogate.json": "\u{FFFD}",
        ]
        for (name, text) in expected {
            let value = parseResult(try JSONVectors.bytes("test_parsing", name), options: options).value
            #expect(value == [.string(text)], "\(name)")
        }
        let key = parseResult(
            try JSONVectors.bytes("test_parsing", "i_object_key_lone_2nd_surrogate.json"), options: options)
        #expect(key.value == ["\u{FFFD}": 0], "i_object_key_lone_2nd_surrogate.json")
    }

    @Test func fiveHundredNestedArraysParseWithAHigherLimit() throws {
        var options = JSONParser.Options()
        options.maxDepth = 500
        let bytes = try JSONVectors.bytes("test_parsing", "i_structure_500_nested_arrays.json")
        #expect(parseResult(bytes, options: options).errorCode == nil)
        options.maxDepth = 499
        #expect(parseResult(bytes, options: options).errorCode == .tooDeep)
    }

    /// Valid documents survive parse → serialize → parse unchanged, and serializing is idempotent.
    @Test func validFilesRoundTrip() throws {
        for name in try JSONVectors.names(in: "test_parsing")
        where name.hasPrefix("y_") && Self.refusedValidFiles[name] == nil {
            let value = try #require(parseResult(try JSONVectors.bytes("test_parsing", name)).value, "\(name)")
            let text = JSONSerializer.serialize(value)
            let reparsed = parseResult(text)
            #expect(reparsed.value == value, "\(name): round trip changed the value")
            #expect(reparsed.value.map { JSONSerializer.serialize($0) } == text, "\(name): serializing is not stable")
        }
    }
}

/// `test_transform/`: inputs whose value parsers disagree on; each reading is pinned here and
/// listed in VERDICTS.md.
@Suite struct JSONTransformTests {
    private func number(_ name: String) throws -> JSONNumber {
        let value = try JSONVectors.bytes("test_transform", name)
        return try #require(parseResult(value).value?.arrayValue?.first?.numberValue, "\(name)")
    }

    @Test func integerBoundaries() throws {
        #expect(try number("number_-9223372036854775808.json").int64 == .min)
        #expect(try number("number_9223372036854775807.json").int64 == .max)
        #expect(try number("number_-9223372036854775809.json").int64 == nil)
        #expect(try number("number_-9223372036854775809.json").double == -9_223_372_036_854_775_808.0)
        #expect(try number("number_9223372036854775808.json").int64 == nil)
        #expect(try number("number_1000000000000000.json").int64 == 1_000_000_000_000_000)
        #expect(try number("number_10000000000000000999.json").int64 == nil)
        #expect(try number("number_10000000000000000999.json").double == 1e19)
    }

    @Test func fractionsAndExponentsAreNotIntegers() throws {
        let one = try number("number_1.0.json")
        #expect(one.int64 == nil)
        #expect(one.double == 1)
        #expect(one.text == "1.0")
        let precise = try number("number_1.000000000000000005.json")
        #expect(precise.double == 1)
        #expect(precise.text == "1.000000000000000005")
        let million = try number("number_1e6.json")
        #expect(million.int64 == nil)
        #expect(million.double == 1e6)
        let tiny = try number("number_1e-999.json")
        #expect(tiny.double == 0)
        #expect(tiny.text == "1E-999")
    }

    @Test(arguments: ["object_key_nfc_nfd.json", "object_key_nfd_nfc.json"])
    func canonicallyEquivalentNamesAreDistinct(name: String) throws {
        let object = try #require(
            parseResult(try JSONVectors.bytes("test_transform", name)).value?.objectValue, "\(name)")
        #expect(object.count == 2, "\(name)")
        #expect(object["\u{E9}"] == "NFC", "\(name)")
        #expect(object["e\u{301}"] == "NFD", "\(name)")
    }

    @Test(arguments: [
        "object_same_key_different_values.json", "object_same_key_same_value.json",
        "object_same_key_unclear_values.json",
    ])
    func duplicateNamesAreRefused(name: String) throws {
        #expect(parseResult(try JSONVectors.bytes("test_transform", name)).errorCode == .duplicateKey, "\(name)")
    }

    @Test(arguments: [1, 2, 3])
    func invalidCodePoints(count: Int) throws {
        let escaped = try JSONVectors.bytes(
            "test_transform", "string_\(count)_escaped_invalid_codepoint\(count == 1 ? "" : "s").json")
        #expect(parseResult(escaped).errorCode == .loneSurrogate, "escaped \(count)")
        var options = JSONParser.Options()
        options.allowsLoneSurrogates = true
        #expect(parseResult(escaped, options: options).value == [.string(String(repeating: "\u{FFFD}", count: count))])
        let raw = try JSONVectors.bytes(
            "test_transform", "string_\(count)_invalid_codepoint\(count == 1 ? "" : "s").json")
        #expect(parseResult(raw).errorCode == .invalidUTF8, "raw \(count)")
    }

    @Test func escapedNullIsKept() throws {
        let value = parseResult(try JSONVectors.bytes("test_transform", "string_with_escaped_NULL.json")).value
        #expect(value == ["A\u{0}B"])
        #expect(value.map { JSONSerializer.string($0) } == #"["A\u0000B"]"#)
    }
}
