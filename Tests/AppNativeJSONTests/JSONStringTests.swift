import AppNativeJSON
import Testing

/// Strings (RFC 8259 §7) and UTF-8 (RFC 8259 §8.1).
@Suite struct JSONStringTests {
    private func string(_ body: [UInt8], options: JSONParser.Options = .init()) -> Result<JSONValue, JSONError> {
        parseResult([UInt8(ascii: "\"")] + body + [UInt8(ascii: "\"")], options: options)
    }

    /// `unescaped = %x20-21 / %x23-5B / %x5D-10FFFF`: one raw byte inside quotes.
    @Test func everySingleByteInAString() {
        for byte in UInt8.min...UInt8.max {
            let result = string([byte])
            switch byte {
            case 0x00..<0x20:
                #expect(result.errorCode == .syntax, "raw control 0x\(String(byte, radix: 16)) must be escaped")
            case 0x22:
                #expect(result.errorCode == .trailingData)
            case 0x5C:
                #expect(result.errorCode == .syntax, "a lone backslash leaves the string open")
            case 0x80...:
                #expect(result.errorCode == .invalidUTF8, "0x\(String(byte, radix: 16)) alone is not UTF-8")
            default:
                #expect(result.value == .string(String(UnicodeScalar(byte))), "0x\(String(byte, radix: 16))")
            }
        }
    }

    /// `escape ( %x22 / %x5C / %x2F / %x62 / %x66 / %x6E / %x72 / %x74 / %x75 4HEXDIG )`.
    @Test func everyByteAfterABackslash() {
        let escapes: [UInt8: String] = [
            0x22: "\"", 0x5C: "\\", 0x2F: "/", 0x62: "\u{8}", 0x66: "\u{C}", 0x6E: "\n", 0x72: "\r", 0x74: "\t",
        ]
        for byte in UInt8.min...UInt8.max {
            let result = string([0x5C, byte])
            if let decoded = escapes[byte] {
                #expect(result.value == .string(decoded), "\\\(UnicodeScalar(byte))")
            } else if byte >= 0x80 {
                // A lone byte of 0x80 or more is ill-formed UTF-8, which always wins.
                #expect(result.errorCode == .invalidUTF8, "0x\(String(byte, radix: 16))")
            } else {
                #expect(result.errorCode == .invalidEscape, "0x\(String(byte, radix: 16))")
            }
        }
        // Escapes other languages accept.
        for text in [#"\a"#, #"\x41"#, #"\'"#, #"\0"#, #"\U0041"#, #"\v"#, #"\e"#] {
            #expect(string(Array(text.utf8)).errorCode == .invalidEscape, "\(text)")
        }
    }

    @Test func unicodeEscapes() {
        #expect(string(Array(#"\u0041\u00e9\u00E9\u4e2d\uFFFF\u0000"#.utf8)).value == "Aéé中\u{FFFF}\u{0}")
        for text in [#"\u"#, #"\u1"#, #"\u12"#, #"\u123"#, #"\u12g4"#, #"\u-123"#, #"\u 123"#, #"\U1234"#, #"\u+123"#] {
            #expect(string(Array(text.utf8)).errorCode == .invalidEscape, "\(text)")
        }
    }

    @Test func surrogatePairsJoin() {
        #expect(string(Array(#"\uD83D\uDE00"#.utf8)).value == "😀")
        #expect(string(Array(#"\ud83d\ude00x"#.utf8)).value == "😀x")
        #expect(string(Array(#"\uD800\uDC00\uDBFF\uDFFF"#.utf8)).value == "\u{10000}\u{10FFFF}")
        #expect(string(Array(#"\uD834\uDD1E"#.utf8)).value == "𝄞")
    }

    @Test(arguments: [
        (#"\uD800"#, "\u{FFFD}"),
        (#"\uDC00"#, "\u{FFFD}"),
        (#"\uDBFFx"#, "\u{FFFD}x"),
        (#"\uD800\u0041"#, "\u{FFFD}A"),
        (#"\uD800\uD800"#, "\u{FFFD}\u{FFFD}"),
        (#"\uDC00\uD800"#, "\u{FFFD}\u{FFFD}"),
        (#"\uD800\n"#, "\u{FFFD}\n"),
        (#"a\uDFFFb"#, "a\u{FFFD}b"),
        (#"\uD83D\uDE00\uD83D"#, "😀\u{FFFD}"),
    ])
    func loneSurrogates(escaped: String, replaced: String) {
        #expect(string(Array(escaped.utf8)).errorCode == .loneSurrogate, "\(escaped)")
        var options = JSONParser.Options()
        options.allowsLoneSurrogates = true
        #expect(string(Array(escaped.utf8), options: options).value == .string(replaced), "\(escaped)")
    }

    @Test func loneSurrogatesInNamesToo() {
        #expect(parseResult(#"{"\uD800":1}"#).errorCode == .loneSurrogate)
    }

    /// Unicode Table 3-7 boundaries, with the scalar each sequence encodes.
    static let wellFormed: [([UInt8], UInt32)] = [
        ([0xC2, 0x80], 0x80), ([0xDF, 0xBF], 0x7FF), ([0xE0, 0xA0, 0x80], 0x800),
        ([0xE1, 0x80, 0x80], 0x1000), ([0xEC, 0xBF, 0xBF], 0xCFFF), ([0xED, 0x80, 0x80], 0xD000),
        ([0xED, 0x9F, 0xBF], 0xD7FF), ([0xEE, 0x80, 0x80], 0xE000), ([0xEF, 0xBF, 0xBF], 0xFFFF),
        ([0xF0, 0x90, 0x80, 0x80], 0x10000), ([0xF1, 0x80, 0x80, 0x80], 0x40000),
        ([0xF3, 0xBF, 0xBF, 0xBF], 0xFFFFF), ([0xF4, 0x80, 0x80, 0x80], 0x100000),
        ([0xF4, 0x8F, 0xBF, 0xBF], 0x10FFFF),
    ]

    /// Overlong forms, encoded surrogates, values above U+10FFFF, stray continuation bytes,
    /// five- and six-byte forms, truncated sequences.
    static let illFormed: [[UInt8]] = [
        [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xC2], [0xC2, 0x7F], [0xC2, 0xC0],
        [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xE1, 0x80], [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF],
        [0xF0, 0x80, 0x80, 0x80], [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],
        [0xF8, 0x88, 0x80, 0x80, 0x80], [0xFC, 0x84, 0x80, 0x80, 0x80, 0x80], [0xFE], [0xFF], [0xF0, 0x9F, 0x98],
        [0xE2, 0x82, 0x22],
    ]

    @Test(arguments: wellFormed)
    func wellFormedUTF8(bytes: [UInt8], scalar: UInt32) throws {
        let expected = String(try #require(UnicodeScalar(scalar)))
        #expect(string(bytes).value == .string(expected))
        #expect(string([0x61] + bytes + [0x62]).value == .string("a\(expected)b"))
    }

    @Test(arguments: illFormed)
    func illFormedUTF8(bytes: [UInt8]) {
        #expect(string(bytes).errorCode == .invalidUTF8, "\(bytes.map { String($0, radix: 16) })")
        #expect(string([0x61, 0x5C, 0x6E] + bytes).errorCode == .invalidUTF8, "after an escape")
        #expect(
            parseResult([UInt8(ascii: "[")] + bytes + [UInt8(ascii: "]")]).errorCode == .invalidUTF8, "outside a string"
        )
        #expect(parseResult(Array("{}".utf8) + bytes).errorCode == .invalidUTF8, "after the value")
    }

    /// Cross-checks the validator against the standard library's over every two-byte string and
    /// the interesting corners of three- and four-byte sequences.
    @Test func validatorAgreesWithTheStandardLibrary() {
        var samples: [[UInt8]] = []
        for first in 0x80...0xFF {
            for second in 0...0xFF { samples.append([UInt8(first), UInt8(second)]) }
        }
        for first in 0xE0...0xF7 {
            for second in 0x70...0xCF {
                for third: UInt8 in [0x7F, 0x80, 0xBF, 0xC0] {
                    samples.append([UInt8(first), UInt8(second), third])
                    samples.append([UInt8(first), UInt8(second), third, 0x80])
                    samples.append([UInt8(first), UInt8(second), 0x80, third])
                }
            }
        }
        for bytes in samples where !bytes.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            let isWellFormed = String(validating: bytes, as: UTF8.self) != nil
            let result = string(bytes)
            #expect((result.errorCode == nil) == isWellFormed, "\(bytes.map { String($0, radix: 16) })")
            if isWellFormed {
                #expect(result.value == .string(String(decoding: bytes, as: UTF8.self)))
            }
        }
    }

    @Test func longStringsCrossTheWordSizedFastPath() {
        for length in 0..<40 {
            for special in ["\"", "\\n", "é", "\u{1}"] {
                for position in 0...length {
                    var body = String(repeating: "a", count: length)
                    body.insert(contentsOf: special, at: body.index(body.startIndex, offsetBy: position))
                    let result = string(Array(body.utf8))
                    switch special {
                    case "\"": #expect(result.errorCode == .trailingData, "\(length) \(position)")
                    case "\\n":
                        var expected = String(repeating: "a", count: length)
                        expected.insert("\n", at: expected.index(expected.startIndex, offsetBy: position))
                        #expect(result.value == .string(expected), "\(length) \(position)")
                    case "é": #expect(result.value == .string(body), "\(length) \(position)")
                    default: #expect(result.errorCode == .syntax, "\(length) \(position)")
                    }
                }
            }
        }
    }

    @Test(arguments: [#"""#, #""abc"#, #""abc\"#, #""abc\""#, #"["abc]"#, #"{"abc:1}"#])
    func unterminatedStrings(text: String) {
        #expect(parseResult(text).errorCode == .syntax, "\(text)")
    }

    @Test func deleteAndNonCharactersAreAllowedRaw() {
        #expect(string([0x7F]).value == "\u{7F}")
        #expect(string(Array("\u{FFFE}\u{10FFFF}\u{2028}".utf8)).value == "\u{FFFE}\u{10FFFF}\u{2028}")
    }
}
