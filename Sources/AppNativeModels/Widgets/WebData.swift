public import AppNativeJSON

/// Data of a `web` widget `[0.6]`: an embedded https page (`contract/models.md` §1.2).
///
/// The app accepts this kind only from one privileged feed; ``WidgetFeedDecoding`` drops it
/// unless told the feed is that one.
public struct WebData: Sendable, Hashable, ModelEncodable {
    /// Scheme `https` (any case, after trimming whitespace) with a non-empty host.
    public var url: String
    /// `nil` = unset, written as `false` in response encoding.
    public var scrollable: Bool?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(url: String, scrollable: Bool? = nil) {
        self.url = url
        self.scrollable = scrollable
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("url", url)
        writer.set("scrollable", scrollable, default: false)
        return writer.value
    }

    /// Whether `url` is `https://host…` after trimming, the scheme compared case-insensitively.
    static func isHTTPSWithHost(_ url: String) -> Bool {
        let trimmed = url.trimmingASCIIWhitespace()
        guard let separator = trimmed.firstRange(of: "://") else { return false }
        guard trimmed[..<separator.lowerBound].lowercased() == "https" else { return false }
        var authority = trimmed[separator.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let host: Substring
        if authority.hasPrefix("[") {
            host = authority.prefix { $0 != "]" }.dropFirst()
        } else {
            host = authority.prefix { $0 != ":" }
        }
        return !host.isEmpty
    }
}

extension WebData: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let url = reader.required("url") { cursor -> String? in
            guard let url = cursor.string() else { return nil }
            guard Self.isHTTPSWithHost(url) else {
                cursor.context.invalid(cursor.path, "url must be an https URL with a host", input: cursor.value)
                return nil
            }
            return url
        }
        let scrollable = reader.nonNull("scrollable") { $0.bool() }
        guard reader.isClean, let url else { return nil }
        self.init(url: url, scrollable: scrollable)
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces, tabs and line breaks (Python `str.strip`
    /// for the ASCII whitespace URLs can carry).
    func trimmingASCIIWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0B}" || $0 == "\u{0C}" }
        let string = Substring(self)
        guard let first = string.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = string.lastIndex(where: { !isSpace($0) })!
        return string[first...last]
    }
}
