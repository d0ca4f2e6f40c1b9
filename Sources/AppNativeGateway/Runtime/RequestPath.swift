/// The path the gateway's rules (public paths, `/.auth/`, the access policy) decide on: the same
/// path the upstream will route, whatever spelling of the request target the client chose.
///
/// Absolute-form targets (RFC 9112 §3.2.2) are reduced to their path, as the proxy forwards them.
/// Spellings that upstreams normalize differently are refused rather than guessed at: empty or
/// dot segments (RFC 3986 §5.2.4), `//`, backslashes, and percent-encoded unreserved characters or
/// `/` (RFC 3986 §6.2.2.2). A policy check on `/admin` is then a check on what reaches `/admin`.
enum RequestPath {
    /// The checked path, or `nil` for a target that must be answered 400.
    static func checked(_ target: String) -> String? {
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
        if path.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == "." || $0 == ".." }) {
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
