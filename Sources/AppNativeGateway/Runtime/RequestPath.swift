/// The path the gateway's rules (public paths, `/.auth/`, the access policy) decide on: the same
/// path the upstream will route, whatever spelling of the request target the client chose.
///
/// Absolute-form targets (RFC 9112 §3.2.2) are reduced to their path, as the proxy forwards them.
/// Spellings that upstreams normalize differently are refused rather than guessed at: empty or
/// dot segments (RFC 3986 §5.2.4) — also when `;` parameters follow them (`..;`, which servlet
/// containers read as `..`) — segments that are nothing but parameters, `//`, backslashes, and
/// percent-encoded unreserved characters or `/` (RFC 3986 §6.2.2.2, so `%2e` never spells a dot).
/// A policy check on `/admin` is then a check on what reaches `/admin`; `DecisionPath` gives the
/// readings of a path that keeps `;` parameters in ordinary segments.
enum RequestPath {
    /// The checked path, or `nil` for a target that must be answered 400.
    static func checked(_ target: String) -> String? {
        // Targets the HTTP parser accepted are visible ASCII (RFC 9112 §3.2): checked over bytes,
        // with the same rules as the general path below, which handles anything else.
        if let result = asciiChecked(target) { return result }
        return characterChecked(target)
    }

    /// `checked` for a target of visible ASCII bytes only; `nil` (outer) for any other target.
    private static func asciiChecked(_ target: String) -> String?? {
        let bytes = target.utf8.span
        for index in bytes.indices where bytes[index] < 0x21 || bytes[index] > 0x7E { return nil }
        let slash = UInt8(ascii: "/")
        var end = bytes.count
        for index in bytes.indices where bytes[index] == UInt8(ascii: "?") {
            end = index
            break
        }
        if end == 1 && bytes[0] == UInt8(ascii: "*") { return .some("*") }
        var start = 0
        if hasPrefixIgnoringCase(bytes, end, httpPrefix) || hasPrefixIgnoringCase(bytes, end, httpsPrefix) {
            var colon = 0
            while bytes[colon] != UInt8(ascii: ":") { colon += 1 }
            var found: Int?
            for index in (colon + 3)..<end where bytes[index] == slash {
                found = index
                break
            }
            guard let found else { return .some("/") }
            start = found
        }
        guard start < end, bytes[start] == slash else { return .some(nil) }
        var segmentStart = start
        for index in start...end where index == end || bytes[index] == slash || bytes[index] == UInt8(ascii: "\\") {
            if index < end {
                if bytes[index] == UInt8(ascii: "\\") { return .some(nil) }
                if index + 1 < end && bytes[index + 1] == slash { return .some(nil) }
            }
            // The segment's name: what precedes its `;` parameters, which servlet containers drop.
            var nameEnd = segmentStart
            while nameEnd < index && bytes[nameEnd] != UInt8(ascii: ";") { nameEnd += 1 }
            let length = nameEnd - segmentStart
            if (length == 1 && bytes[segmentStart] == UInt8(ascii: "."))
                || (length == 2 && bytes[segmentStart] == UInt8(ascii: ".") && bytes[segmentStart + 1] == UInt8(ascii: "."))
                || (length == 0 && nameEnd < index)
            {
                return .some(nil)
            }
            segmentStart = index + 1
        }
        var index = start
        while index < end {
            guard bytes[index] == UInt8(ascii: "%") else {
                index += 1
                continue
            }
            guard index + 2 < end else { return .some(nil) }
            // The stdlib parse, as the general path uses (it also takes a sign: "+a", "-0").
            guard let value = UInt8(asciiText(target, index + 1, index + 3), radix: 16) else { return .some(nil) }
            let isUnreserved = (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value) || (0x30...0x39).contains(value)
                || value == 0x2D || value == 0x2E || value == 0x5F || value == 0x7E
            if isUnreserved || value == 0x2F || value == 0x5C { return .some(nil) }
            index += 3
        }
        return .some(asciiText(target, start, end))
    }

    private static let httpPrefix = Array("http://".utf8)
    private static let httpsPrefix = Array("https://".utf8)

    private static func hasPrefixIgnoringCase(_ bytes: Span<UInt8>, _ end: Int, _ prefix: [UInt8]) -> Bool {
        guard end >= prefix.count else { return false }
        for index in prefix.indices {
            var byte = bytes[index]
            if byte &- UInt8(ascii: "A") < 26 { byte |= 0x20 }
            if byte != prefix[index] { return false }
        }
        return true
    }

    /// The bytes `start..<end` of an ASCII `target` as a string: every offset is a character
    /// boundary, and a native string's UTF-8 view moves by offsets in constant time.
    private static func asciiText(_ target: String, _ start: Int, _ end: Int) -> String {
        let utf8 = target.utf8
        // The common origin-form target without a query is its own path: no copy.
        if start == 0 && end == utf8.count { return target }
        let from = utf8.index(utf8.startIndex, offsetBy: start)
        return String(Substring(utf8[from..<utf8.index(from, offsetBy: end - start)]))
    }

    private static func characterChecked(_ target: String) -> String? {
        var path = Substring(target)
        if let query = path.firstIndex(of: "?") { path = path[..<query] }
        if path == "*" { return "*" }
        let lowered = path.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            let afterScheme = path[path.index(path.firstIndex(of: ":")!, offsetBy: 3)...]
            path = afterScheme.firstIndex(of: "/").map { afterScheme[$0...] } ?? "/"
        }
        guard path.hasPrefix("/") else { return nil }
        if path.contains("//") || path.contains("\\") { return nil }
        let isDotOrBareParameters = { (segment: Substring) -> Bool in
            let name = segment.prefix { $0 != ";" }
            return name == "." || name == ".." || (name.isEmpty && !segment.isEmpty)
        }
        if path.split(separator: "/", omittingEmptySubsequences: false).contains(where: isDotOrBareParameters) {
            return nil
        }
        var index = path.startIndex
        while let percent = path[index...].firstIndex(of: "%") {
            let digits = path[path.index(after: percent)...].prefix(2)
            guard digits.count == 2, let value = UInt8(digits, radix: 16) else { return nil }
            let isUnreserved = (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value) || (0x30...0x39).contains(value)
                || value == 0x2D || value == 0x2E || value == 0x5F || value == 0x7E
            if isUnreserved || value == 0x2F || value == 0x5C { return nil }
            index = path.index(percent, offsetBy: 3)
        }
        return String(path)
    }
}
