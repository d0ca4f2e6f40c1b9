/// The `application/x-www-form-urlencoded` serializer of the WHATWG URL Standard (§5.2): each
/// name and value as UTF-8, bytes outside the unescaped set percent-encoded in upper-case hex,
/// space as `+`, pairs joined by `&`: token requests (RFC 6749 §4.1.3), forms and query strings.
public enum FormURLEncoding: Sendable {
    /// The serialized form of `pairs`, in order.
    public static func serialize(_ pairs: [(name: String, value: String)]) -> [UInt8] {
        var output: [UInt8] = []
        for (index, pair) in pairs.enumerated() {
            if index > 0 { output.append(UInt8(ascii: "&")) }
            append(pair.name, to: &output)
            output.append(UInt8(ascii: "="))
            append(pair.value, to: &output)
        }
        return output
    }

    /// The name-value pairs of a form or a query (the WHATWG parser, §5.1): split on `&`, empty
    /// sequences skipped, each split at its first `=`, `+` read as space, percent escapes decoded
    /// (a malformed escape stays as written), the bytes read as UTF-8 with replacement.
    public static func parse(_ bytes: some Collection<UInt8>) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        for sequence in bytes.split(separator: UInt8(ascii: "&")) {
            let name: ArraySlice<UInt8>
            let value: ArraySlice<UInt8>
            let sequence = Array(sequence)[...]
            if let equals = sequence.firstIndex(of: UInt8(ascii: "=")) {
                name = sequence[..<equals]
                value = sequence[(equals + 1)...]
            } else {
                name = sequence
                value = []
            }
            pairs.append((decode(name), decode(value)))
        }
        return pairs
    }

    /// The pairs of the query of a request target (`/path?query`), or none.
    public static func parseQuery(ofTarget target: String) -> [(name: String, value: String)] {
        guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return [] }
        return parse(target.utf8[target.utf8.index(after: mark)...])
    }

    private static func decode(_ bytes: ArraySlice<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                output.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex, let high = hexValue(bytes[index + 1]),
                let low = hexValue(bytes[index + 2])
            {
                output.append(high << 4 | low)
                index += 2
            } else {
                output.append(byte)
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Percent-encodes one name or value with the form's rules.
    static func append(_ text: String, to output: inout [UInt8]) {
        for byte in text.utf8 {
            if isUnescaped(byte) {
                output.append(byte)
            } else if byte == UInt8(ascii: " ") {
                output.append(UInt8(ascii: "+"))
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0f)])
            }
        }
    }

    /// The application/x-www-form-urlencoded percent-encode set leaves exactly these unescaped:
    /// ASCII alphanumerics and `*`, `-`, `.`, `_`.
    static func isUnescaped(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)
}
