// `value *( OWS ";" OWS parameter )` for the request Content-Type (RFC 9110 §8.3.1, §5.6.6) and
// a part's Content-Disposition (RFC 6266 §4.1, RFC 7578 §4.2). Parsed from bytes, so obs-text in
// a quoted filename (raw UTF-8 from browsers) survives unchanged.

struct HeaderParameters {
    struct Parameter {
        /// Lower-cased: parameter names are case-insensitive (RFC 9110 §5.6.6).
        var name: String
        /// After quoted-string unescaping.
        var value: [UInt8]
        var isQuoted: Bool
    }

    /// The leading token (`form-data`) or `type "/" subtype`, lower-cased.
    var leading: String
    var parameters: [Parameter]

    /// The parameter named `name` (lower-case).
    func first(_ name: String) -> Parameter? { parameters.first { $0.name == name } }

    /// Whether a parameter name occurs more than once; a repeated parameter is ambiguous
    /// (which one does the upstream pick?), so callers refuse it.
    var hasRepeatedName: Bool { Set(parameters.map(\.name)).count != parameters.count }

    /// Nil when the bytes do not follow the grammar.
    /// - Parameter isMediaType: whether the leading value is `type "/" subtype` (else one token).
    static func parse(_ bytes: [UInt8], isMediaType: Bool) -> HeaderParameters? {
        var index = 0
        let end = bytes.count
        func skipWhitespace() { while index < end && ByteClass.isWhitespace(bytes[index]) { index += 1 } }
        func token() -> [UInt8]? {
            let start = index
            while index < end && ByteClass.isTchar(bytes[index]) { index += 1 }
            return index > start ? Array(bytes[start..<index]) : nil
        }

        skipWhitespace()
        guard var leading = token() else { return nil }
        if isMediaType {
            guard index < end, bytes[index] == ASCII.slash else { return nil }
            index += 1
            guard let subtype = token() else { return nil }
            leading += [ASCII.slash] + subtype
        }
        var parameters: [Parameter] = []
        while true {
            skipWhitespace()
            if index == end { break }
            guard bytes[index] == ASCII.semicolon else { return nil }
            index += 1
            skipWhitespace()
            // One trailing ";" is tolerated: it cannot change what any parameter means.
            if index == end { break }
            // RFC 9110 §5.6.6: no whitespace around "=".
            guard let name = token(), index < end, bytes[index] == ASCII.equals else { return nil }
            index += 1
            guard index < end else { return nil }
            if bytes[index] == ASCII.dquote {
                index += 1
                guard let value = quotedString(bytes, &index) else { return nil }
                parameters.append(Parameter(name: lowercased(name), value: value, isQuoted: true))
            } else {
                guard let value = token() else { return nil }
                parameters.append(Parameter(name: lowercased(name), value: value, isQuoted: false))
            }
        }
        return HeaderParameters(leading: lowercased(leading), parameters: parameters)
    }

    /// Reads a quoted-string body from `index` (just past the opening quote) through the closing
    /// quote. RFC 9110 §5.6.4: qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text.
    ///
    /// A backslash escapes only a tspecial (`()<>@,;:\"/[]?=`); before anything else it is a
    /// literal backslash. Browsers never escape inside a quoted filename and some send Windows
    /// paths unescaped (`C:\Users\me\x.exe`); unescaping every backslash would silently drop
    /// the path separators (the rule Go's mime package applies for the same reason).
    private static func quotedString(_ bytes: [UInt8], _ index: inout Int) -> [UInt8]? {
        var value: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case ASCII.dquote:
                index += 1
                return value
            case ASCII.backslash:
                if index + 1 < bytes.count, isTspecial(bytes[index + 1]) {
                    value.append(bytes[index + 1])
                    index += 2
                } else {
                    value.append(byte)
                    index += 1
                }
            case ASCII.htab, 0x20...0x7E, 0x80...0xFF:
                value.append(byte)
                index += 1
            default:
                return nil
            }
        }
        return nil
    }

    /// RFC 2045 §5.1 tspecials.
    private static func isTspecial(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "@"),
            UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: ":"), UInt8(ascii: "\\"), UInt8(ascii: "\""),
            UInt8(ascii: "/"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "?"), UInt8(ascii: "="):
            true
        default: false
        }
    }

    /// ASCII lower case of a token (tokens are ASCII).
    static func lowercased(_ token: [UInt8]) -> String {
        String(decoding: token.map { $0 &- 0x41 < 26 ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
