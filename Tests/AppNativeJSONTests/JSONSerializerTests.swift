import AppNativeJSON
import Testing

/// Compact RFC 8259 output.
@Suite struct JSONSerializerTests {
    @Test func compactOutput() throws {
        let value: JSONValue = ["b": [1, "two", true, false, .null, [:], []], "a": ["x": -1.5]]
        #expect(JSONSerializer.string(value) == #"{"b":[1,"two",true,false,null,{},[]],"a":{"x":-1.5}}"#)
        #expect(JSONSerializer.serialize(value) == Array(JSONSerializer.string(value).utf8))
    }

    @Test func scalarsAtTheTop() {
        #expect(JSONSerializer.string(.null) == "null")
        #expect(JSONSerializer.string(true) == "true")
        #expect(JSONSerializer.string("s") == #""s""#)
        #expect(JSONSerializer.string(.number(JSONNumber(text: "1E-999")!)) == "1E-999")
    }

    /// RFC 8259 §7: `"`, `\` and U+0000–U+001F must be escaped; nothing else is.
    @Test func escapesExactlyWhatMustBeEscaped() {
        let short: [UInt8: String] = [0x08: #"\b"#, 0x09: #"\t"#, 0x0A: #"\n"#, 0x0C: #"\f"#, 0x0D: #"\r"#]
        for byte in UInt8(0)..<0x20 {
            let expected = short[byte] ?? "\\u00" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)
            #expect(
                JSONSerializer.string(.string(String(UnicodeScalar(byte)))) == "\"\(expected)\"",
                "0x\(String(byte, radix: 16))")
        }
        #expect(JSONSerializer.string("\"") == #""\"""#)
        #expect(JSONSerializer.string("\\") == #""\\""#)
        #expect(JSONSerializer.string("a/b") == #""a/b""#)
        #expect(JSONSerializer.string("\u{7F}") == "\"\u{7F}\"")
        #expect(JSONSerializer.string("é中😀\u{2028}\u{2029}\u{FEFF}") == "\"é中😀\u{2028}\u{2029}\u{FEFF}\"")
        #expect(JSONSerializer.string("x\u{1F}y\"z\\") == #""x\u001fy\"z\\""#)
    }

    @Test func namesAreEscapedToo() {
        #expect(JSONSerializer.string(["a\"b\n": 1]) == #"{"a\"b\n":1}"#)
    }

    @Test func sortingKeysUsesScalarOrderAtEveryLevel() {
        let value: JSONValue = ["b": 1, "é": 2, "B": 3, "aa": ["z": 1, "a": 2], "a": 4, "😀": 5, "\u{FFFD}": 6]
        #expect(
            JSONSerializer.string(value, sortingKeys: true)
                == "{\"B\":3,\"a\":4,\"aa\":{\"a\":2,\"z\":1},\"b\":1,\"é\":2,\"\u{FFFD}\":6,\"😀\":5}"
        )
        // The object itself keeps its order.
        #expect(JSONSerializer.string(value).hasPrefix(#"{"b":1"#))
    }

    @Test func sortedOutputIsIndependentOfInsertionOrder() {
        let forward = JSONObject((0..<20).map { ("k\($0)", .number(JSONNumber($0))) })
        let backward = JSONObject((0..<20).reversed().map { ("k\($0)", .number(JSONNumber($0))) })
        #expect(
            JSONSerializer.serialize(.object(forward), sortingKeys: true)
                == JSONSerializer.serialize(.object(backward), sortingKeys: true))
    }

    @Test func numbersAreWrittenAsTheirLiteral() {
        for text in ["1.0", "1E+2", "-0", "123456789012345678901234567890", "1e999"] {
            #expect(JSONSerializer.string(parseResult("[\(text)]").value ?? .null) == "[\(text)]")
        }
    }

    /// Seeded random documents, including every escape-worthy character, survive
    /// serialize → parse unchanged.
    @Test func randomValuesRoundTrip() throws {
        var generator = SeededGenerator(seed: 0x5EED)
        for round in 0..<500 {
            let value = generator.value(depth: 0)
            let text = JSONSerializer.serialize(value)
            let reparsed = parseResult(text)
            #expect(reparsed.value == value, "round \(round)")
            #expect(reparsed.value.map { JSONSerializer.serialize($0) } == text, "round \(round)")
        }
    }
}

/// SplitMix64: a small deterministic generator, so a failing round can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    private static let alphabet: [Unicode.Scalar] = [
        "a", "Z", "0", " ", "\"", "\\", "/", "\u{0}", "\u{8}", "\t", "\n", "\u{C}", "\r", "\u{1F}", "\u{7F}",
        "é", "\u{301}", "中", "\u{2028}", "\u{FFFD}", "\u{FFFF}", "😀", "\u{10FFFF}",
    ]

    mutating func string() -> String {
        var text = ""
        for _ in 0..<Int.random(in: 0..<24, using: &self) {
            text.unicodeScalars.append(Self.alphabet.randomElement(using: &self)!)
        }
        return text
    }

    mutating func value(depth: Int) -> JSONValue {
        switch Int.random(in: 0..<(depth < 6 ? 8 : 5), using: &self) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &self))
        case 2: return .number(JSONNumber(Int64.random(in: .min ... .max, using: &self)))
        case 3: return .number(JSONNumber(Double.random(in: -1e300...1e300, using: &self))!)
        case 4: return .string(string())
        case 5, 6:
            return .array((0..<Int.random(in: 0..<5, using: &self)).map { _ in value(depth: depth + 1) })
        default:
            var object = JSONObject()
            for _ in 0..<Int.random(in: 0..<20, using: &self) {
                object[string()] = value(depth: depth + 1)
            }
            return .object(object)
        }
    }
}
