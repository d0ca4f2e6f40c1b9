/// A path prefix of a rule (`PUBLIC_PATHS`, an access-policy rule), matched on segment
/// boundaries: `/billing` and `/billing/` both match `/billing` and `/billing/x`, never
/// `/billingx` or `/billing-admin`. A prefix that matched inside a segment would open (or leave
/// unguarded) every path that merely starts with the same letters.
struct PathPrefix: Sendable, Equatable, CustomStringConvertible {
    /// The prefix as configured.
    let description: String
    /// The prefix without its trailing `/`: empty for `/`, which matches every path.
    private let base: String

    init(_ text: String) {
        description = text
        var base = Substring(text)
        while base.hasSuffix("/") { base = base.dropLast() }
        self.base = String(base)
    }

    /// The prefix as compared: without its trailing `/` (`/` for the root).
    var normalized: String { base.isEmpty ? "/" : base }

    /// How many bytes the prefix matches (its trailing `/` not counted): longer prefixes are
    /// more specific.
    var length: Int { base.utf8.count }

    /// `path` below this prefix, starting with `/` (empty when `path` is the prefix itself);
    /// `nil` when the prefix does not match.
    func remainder(of path: String) -> String? {
        guard matches(path) else { return nil }
        return String(path.utf8.dropFirst(base.utf8.count)) ?? ""
    }

    /// Whether `path` (a checked path: it starts with `/`) is this prefix or lies below it.
    func matches(_ path: String) -> Bool {
        let base = base.utf8
        let path = path.utf8
        guard path.starts(with: base) else { return false }
        let next = path.index(path.startIndex, offsetBy: base.count)
        return next == path.endIndex || path[next] == UInt8(ascii: "/")
    }
}
