// A part's Content-Disposition, read as the Python reference reads it: python-multipart's
// `parse_options_header` (its `_parseparam` split included), then Starlette's form parser. The
// gateway answers for that reference, so a header it accepts is accepted here with the same
// name and filename, however loosely it follows RFC 7578 §4.2: the disposition type is not
// checked, an unescaped quote stays in the value, a repeated parameter keeps its last value, and
// `filename*` is ignored (RFC 7578 §4.2 forbids the RFC 8187 form in multipart/form-data).

enum ContentDisposition {
    struct Value {
        var name: String
        /// `nil` when the part has no `filename` parameter: then it is a text field.
        var filename: String?
    }

    private static let semicolon = UInt8(ascii: ";")
    private static let equals = UInt8(ascii: "=")
    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")
    private static let colon = UInt8(ascii: ":")

    /// - Throws: `.missingPartName` when the header (or its `name` parameter) is missing.
    static func parse(_ bytes: [UInt8]?) throws(HTTPParseError) -> Value {
        let options = bytes.map(parameters) ?? [:]
        guard let name = options["name"] else {
            throw HTTPParseError(.missingPartName, reason: "no name parameter in Content-Disposition")
        }
        return Value(name: FormText.decode(name), filename: options["filename"].map(FormText.decode))
    }

    /// `parse_options_header`: the parameters by name (as written, or lower-cased when the
    /// segment has a `=`), the last of a name winning; quoted values unquoted with `\\` and `\"`
    /// unescaped; a `filename` that is a Windows path reduced to its last component.
    static func parameters(_ bytes: [UInt8]) -> [String: [UInt8]] {
        guard bytes.contains(semicolon) else { return [:] }
        var options: [String: [UInt8]] = [:]
        for segment in segments(bytes).dropFirst() {
            let separator = segment.firstIndex(of: equals)
            let key = separator.map { Array(segment[..<$0]) } ?? segment
            var value = separator.map { Array(segment[($0 + 1)...]) } ?? []
            if key.contains(UInt8(ascii: "*")) { continue }
            if value.count >= 2, value.first == quote, value.last == quote {
                value = replace(replace(Array(value[1..<(value.count - 1)]), [backslash, backslash], [backslash]), [backslash, quote], [quote])
            }
            let keyText = String(String.UnicodeScalarView(key.map { Unicode.Scalar($0) }))
            if keyText == "filename",
                (value.count >= 3 && value[1] == colon && value[2] == backslash) || value.starts(with: [backslash, backslash])
            {
                value = Array(value.split(separator: backslash, omittingEmptySubsequences: false).last ?? [])
            }
            options[keyText] = value
        }
        return options
    }

    /// `_parseparam`: the `;`-separated segments, a `;` inside a quoted string not splitting.
    /// Ported step for step (its quote counting included), so odd headers split as they do there.
    static func segments(_ bytes: [UInt8]) -> [[UInt8]] {
        let s = [semicolon] + bytes
        var list: [[UInt8]] = []
        var start = 0
        while find(s, semicolon, from: start) == start {
            start += 1
            var end = find(s, semicolon, from: start)
            var index = start
            var quotes = 0
            while end > 0 {
                quotes += count(s, [quote], from: index, to: end) - count(s, [backslash, quote], from: index, to: end)
                if quotes & 1 == 0 { break }
                (end, index) = (index, find(s, semicolon, from: end + 1))
            }
            if end < 0 { end = s.count }
            var segment: [UInt8]
            if let separator = s[start..<end].firstIndex(of: equals) {
                segment = lowercased(stripped(Array(s[start..<separator]), leading: false)) + [equals]
                    + stripped(Array(s[(separator + 1)..<end]), trailing: false)
            } else {
                segment = Array(s[start..<end])
            }
            segment = stripped(segment)
            list.append(segment)
            start = end
        }
        return list
    }

    /// Python's `str.find(sub, start)`: the index, or -1.
    private static func find(_ s: [UInt8], _ byte: UInt8, from start: Int) -> Int {
        guard start < s.count else { return -1 }
        return s[max(start, 0)...].firstIndex(of: byte) ?? -1
    }

    /// Python's `str.count(sub, start, end)`, negative indices counted from the end.
    private static func count(_ s: [UInt8], _ sub: [UInt8], from start: Int, to end: Int) -> Int {
        let lower = min(max(start < 0 ? start + s.count : start, 0), s.count)
        let upper = min(max(end < 0 ? end + s.count : end, 0), s.count)
        guard lower < upper else { return 0 }
        var found = 0
        var index = lower
        while index + sub.count <= upper {
            if s[index..<(index + sub.count)].elementsEqual(sub) {
                found += 1
                index += sub.count
            } else {
                index += 1
            }
        }
        return found
    }

    /// Python's `bytes.replace(old, new)`: left to right, without overlaps.
    private static func replace(_ bytes: [UInt8], _ old: [UInt8], _ new: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if index + old.count <= bytes.count, bytes[index..<(index + old.count)].elementsEqual(old) {
                out += new
                index += old.count
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }

    private static func stripped(_ bytes: [UInt8], leading: Bool = true, trailing: Bool = true) -> [UInt8] {
        var slice = bytes[...]
        if leading { while let first = slice.first, first == ASCII.sp || first == ASCII.htab { slice = slice.dropFirst() } }
        if trailing { while let last = slice.last, last == ASCII.sp || last == ASCII.htab { slice = slice.dropLast() } }
        return Array(slice)
    }

    /// Python's `str.lower()` on Latin-1 text (the header as Starlette decodes it), back to bytes.
    private static func lowercased(_ bytes: [UInt8]) -> [UInt8] {
        bytes.map { byte in
            let scalar = Unicode.Scalar(byte)
            let lower = String(scalar).lowercased().unicodeScalars
            guard lower.count == 1, let only = lower.first, only.value <= 0xFF else { return byte }
            return UInt8(only.value)
        }
    }
}
