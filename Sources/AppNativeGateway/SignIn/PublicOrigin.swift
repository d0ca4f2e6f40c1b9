/// `scheme://host[:port]` of this gateway as browsers see it: `PUBLIC_URL`, or the request's Host
/// (and, from a trusted proxy, its `X-Forwarded-Proto`/`X-Forwarded-Host`). The redirect URI and
/// the post-logout redirect are built from it.
struct PublicOrigin: Sendable, Equatable {
    let scheme: String
    /// Host and optional port, lower-cased.
    let authority: String

    var text: String { scheme + "://" + authority }
    var isSecure: Bool { scheme == "https" }

    /// Parses `http(s)://authority` with nothing after it.
    init?(parsing text: String) {
        let lowered = text.lowercased()
        for scheme in ["https", "http"] where lowered.hasPrefix(scheme + "://") {
            self.init(scheme: scheme, authority: String(lowered.dropFirst(scheme.count + 3)))
            return
        }
        return nil
    }

    /// `nil` unless `authority` is a plain `host[:port]`: a Host field is client input, and a
    /// redirect URI built from `evil.example/x@` or `a\b` would point somewhere else.
    init?(scheme: String, authority: String) {
        guard scheme == "http" || scheme == "https" else { return nil }
        let lowered = authority.lowercased()
        guard !lowered.isEmpty, lowered.utf8.count <= 255 else { return nil }
        let allowed = lowered.utf8.allSatisfy {
            ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "[")
                || $0 == UInt8(ascii: "]")
        }
        guard allowed, lowered.utf8.first != UInt8(ascii: ":") else { return nil }
        self.scheme = scheme
        self.authority = lowered
    }
}
