// A part's Content-Disposition (RFC 7578 §4.2): `form-data` with exactly one `name`, an
// optional `filename` and an optional RFC 8187 `filename*`.

enum ContentDisposition {
    struct Value {
        var name: String
        var filename: String?
        var encodedFilename: String?
    }

    static func parse(_ bytes: [UInt8]) throws(HTTPParseError) -> Value {
        guard let parsed = HeaderParameters.parse(bytes, isMediaType: false) else {
            throw HTTPParseError(.invalidContentDisposition, reason: "Content-Disposition is not token *(; parameter)")
        }
        guard parsed.leading == "form-data" else {
            throw HTTPParseError(.invalidContentDisposition, reason: "disposition type is not form-data")
        }
        guard !parsed.hasRepeatedName else {
            throw HTTPParseError(.invalidContentDisposition, reason: "a Content-Disposition parameter is repeated")
        }
        guard let nameParameter = parsed.first("name") else {
            throw HTTPParseError(.invalidContentDisposition, reason: "no name parameter")
        }
        guard let name = text(nameParameter.value) else {
            throw HTTPParseError(.invalidContentDisposition, reason: "name is not UTF-8 without control characters")
        }
        var value = Value(name: name)
        if let filename = parsed.first("filename") {
            guard let text = text(filename.value) else {
                throw HTTPParseError(.invalidFilename, reason: "filename is not UTF-8 without control characters")
            }
            value.filename = text
        }
        if let encoded = parsed.first("filename*") {
            guard !encoded.isQuoted else {
                throw HTTPParseError(.invalidFilename, reason: "filename* is quoted (RFC 8187 ext-value is a token)")
            }
            value.encodedFilename = try extValue(encoded.value)
        }
        return value
    }

    /// Decodes an RFC 8187 §3.2.1 ext-value: charset "'" [ language ] "'" value-chars.
    /// Only UTF-8 and ISO-8859-1 are accepted (RFC 8187 §3.2.1: the two recipients must support).
    static func extValue(_ bytes: [UInt8]) throws(HTTPParseError) -> String {
        let parts = bytes.split(separator: UInt8(ascii: "'"), maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw HTTPParseError(.invalidFilename, reason: "filename* is not charset'language'value")
        }
        let charset = HeaderParameters.lowercased(Array(parts[0]))
        guard parts[1].allSatisfy({ isAlphaNumeric($0) || $0 == UInt8(ascii: "-") }) else {
            throw HTTPParseError(.invalidFilename, reason: "filename* language is not a language tag")
        }
        var decoded: [UInt8] = []
        let valueChars = Array(parts[2])
        var index = 0
        while index < valueChars.count {
            let byte = valueChars[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < valueChars.count,
                    let high = ByteClass.hexValue(valueChars[index + 1]),
                    let low = ByteClass.hexValue(valueChars[index + 2])
                else {
                    throw HTTPParseError(.invalidFilename, reason: "filename* has a malformed percent escape")
                }
                decoded.append(high << 4 | low)
                index += 3
            } else {
                guard isAttrChar(byte) else {
                    throw HTTPParseError(.invalidFilename, reason: "filename* has a character outside attr-char")
                }
                decoded.append(byte)
                index += 1
            }
        }
        let result: String?
        switch charset {
        case "utf-8": result = text(decoded)
        case "iso-8859-1":
            let latin1 = String(String.UnicodeScalarView(decoded.map { Unicode.Scalar($0) }))
            result = text(Array(latin1.utf8))
        default:
            throw HTTPParseError(.invalidFilename, reason: "filename* charset is neither UTF-8 nor ISO-8859-1")
        }
        guard let result else {
            throw HTTPParseError(.invalidFilename, reason: "filename* is not valid UTF-8 without control characters")
        }
        return result
    }

    /// The bytes as a string when they are valid UTF-8 without C0 controls or DEL. A NUL or a
    /// line break in a name reaching a file system or a header is how truncation and header
    /// injection happen, so such a part is refused rather than cleaned.
    static func text(_ bytes: [UInt8]) -> String? {
        guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func isAlphaNumeric(_ byte: UInt8) -> Bool {
        ByteClass.isDigit(byte) || (byte | 0x20) &- UInt8(ascii: "a") < 26
    }

    /// RFC 8187 §3.2.1: attr-char = ALPHA / DIGIT / "!" / "#" / "$" / "&" / "+" / "-" / "." /
    /// "^" / "_" / "`" / "|" / "~".
    private static func isAttrChar(_ byte: UInt8) -> Bool {
        if isAlphaNumeric(byte) { return true }
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "+"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"),
            UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default: return false
        }
    }
}
