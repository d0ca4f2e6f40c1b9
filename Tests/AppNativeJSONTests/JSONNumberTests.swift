import AppNativeJSON
import Testing

/// Numbers (RFC 8259 §6):
///
///     number = [ minus ] int [ frac ] [ exp ]
///     int    = zero / ( digit1-9 *DIGIT )
///     frac   = decimal-point 1*DIGIT
///     exp    = e [ minus / plus ] 1*DIGIT
@Suite struct JSONNumberTests {
    @Test(arguments: [
        "0", "-0", "1", "-1", "10", "1234567890", "0.0", "-0.0", "1.5", "0.000001", "1e5", "1E5", "1e+5",
        "1e-5", "1E+05", "0e0", "-0.0e-0", "123.456e-789", "123456789012345678901234567890", "1e999",
    ])
    func grammarAccepts(text: String) throws {
        let value = try #require(parseResult(text).value, "\(text)")
        #expect(value.numberValue?.text == text)
        #expect(parseResult("[\(text)]").value == [value])
        #expect(JSONNumber(text: text)?.text == text)
    }

    @Test(arguments: [
        ("01", JSONError.Code.invalidNumber), ("-01", .invalidNumber), ("00", .invalidNumber),
        ("+1", .invalidNumber), (".5", .invalidNumber), ("-.5", .invalidNumber), ("1.", .invalidNumber),
        ("1.e5", .invalidNumber), ("1e", .invalidNumber), ("1e+", .invalidNumber), ("1E-", .invalidNumber),
        ("-", .invalidNumber), ("--1", .invalidNumber), ("- 1", .invalidNumber), ("0x10", .invalidNumber),
        ("0X1", .invalidNumber), ("1_000", .trailingData), ("1.5.5", .invalidNumber), ("1e5e5", .invalidNumber),
        ("1e5.5", .invalidNumber), ("1a", .invalidNumber), ("-Infinity", .invalidNumber), ("Infinity", .syntax),
        ("NaN", .syntax), ("-NaN", .invalidNumber), ("0.", .invalidNumber),
        ("2.e3", .invalidNumber), ("1+2", .invalidNumber), ("1-2", .invalidNumber),
    ])
    func grammarRefuses(text: String, code: JSONError.Code) {
        #expect(parseResult(text).errorCode == code, "\(text)")
        #expect(parseResult("[\(text)]").errorCode != nil, "[\(text)]")
        #expect(JSONNumber(text: text) == nil, "\(text)")
    }

    /// `int = zero / ( digit1-9 *DIGIT )`: every byte after a leading zero in `[0?]`.
    @Test func everyByteAfterALeadingZero() {
        let outcomes: [UInt8: JSONError.Code?] = [
            0x20: nil, 0x09: nil, 0x0A: nil, 0x0D: nil,
            UInt8(ascii: ","): .syntax, UInt8(ascii: "]"): .trailingData,
            UInt8(ascii: "."): .invalidNumber, UInt8(ascii: "e"): .invalidNumber, UInt8(ascii: "E"): .invalidNumber,
        ]
        for byte in UInt8.min...UInt8.max {
            let result = parseResult([UInt8(ascii: "["), UInt8(ascii: "0"), byte, UInt8(ascii: "]")])
            if let expected = outcomes[byte] {
                #expect(result.errorCode == expected, "0x\(String(byte, radix: 16))")
            } else {
                #expect(result.errorCode != nil, "0x\(String(byte, radix: 16))")
            }
        }
    }

    @Test func textInitialiserRefusesWhitespaceAndEmpty() {
        for text in ["", " 1", "1 ", "\n1", "1\n", "[1]", "\"1\""] {
            #expect(JSONNumber(text: text) == nil, "\(text.debugDescription)")
        }
    }

    @Test(arguments: [
        ("0", 0 as Int64?), ("-0", 0), ("42", 42), ("-42", -42), ("9223372036854775807", .max),
        ("-9223372036854775808", .min), ("9223372036854775808", nil), ("-9223372036854775809", nil),
        ("99999999999999999999", nil), ("1.0", nil), ("1e3", nil), ("1767225600.0", nil), ("0.5", nil),
    ])
    func int64ReadsIntegerLiteralsOnly(text: String, expected: Int64?) throws {
        let number = try #require(JSONNumber(text: text))
        #expect(number.int64 == expected, "\(text)")
        #expect(number.isInteger == !text.contains(where: { ".eE".contains($0) }))
    }

    @Test(arguments: [
        ("1.5e3", 1500 as Double?), ("-0", -0.0), ("1e308", 1e308), ("1e309", nil), ("-1e309", nil),
        ("1e-999", 0), ("-1e-999", -0.0), ("123.456e-789", 0), ("4.9e-324", .leastNonzeroMagnitude),
        ("17976931348623157e292", 1.7976931348623157e308),
        ("1.000000000000000005", 1), ("0.1", 0.1),
    ])
    func doubleIsNilOnlyOnOverflow(text: String, expected: Double?) throws {
        let number = try #require(JSONNumber(text: text))
        #expect(number.double == expected, "\(text)")
        if let expected, expected == 0 {
            #expect(number.double?.sign == expected.sign, "\(text) keeps its sign")
        }
    }

    @Test func integerInitialisers() {
        #expect(JSONNumber(Int64.min).text == "-9223372036854775808")
        #expect(JSONNumber(Int64.max).int64 == .max)
        #expect(JSONNumber(42).text == "42")
        #expect(JSONNumber(-7 as Int).int64 == -7)
    }

    @Test(arguments: [
        0.0, -0.0, 1, -1, 0.1, 1.5e300, -2.5e-300, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 1e16, 123_456.789,
        1_767_225_600,
    ])
    func doubleInitialiserRoundTrips(value: Double) throws {
        let number = try #require(JSONNumber(value))
        #expect(JSONNumber(text: number.text) != nil, "\(number.text) must be a JSON number")
        #expect(number.double == value)
        #expect(number.double?.sign == value.sign)
        #expect(parseResult(JSONSerializer.string(.number(number))).value == .number(number))
    }

    @Test func doubleInitialiserRefusesNonFinite() {
        #expect(JSONNumber(Double.infinity) == nil)
        #expect(JSONNumber(-Double.infinity) == nil)
        #expect(JSONNumber(Double.nan) == nil)
        #expect(JSONNumber(Double.signalingNaN) == nil)
    }

    @Test func equalityIsLexical() throws {
        #expect(JSONNumber(text: "1") != JSONNumber(text: "1.0"))
        #expect(JSONNumber(text: "1e0") != JSONNumber(text: "1"))
        #expect(JSONNumber(1) == JSONNumber(text: "1"))
        #expect(JSONNumber(text: "1.5")?.description == "1.5")
    }
}
