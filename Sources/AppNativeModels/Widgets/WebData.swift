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

    /// The reference's rule: `urllib.parse.urlsplit(url.strip())` gives the scheme `https` (any
    /// case) and a non-empty network location. The location is not a host: `https://@/` and
    /// `https://user@host` pass, `https:host` and `https:///path` do not.
    static func isHTTPSWithHost(_ url: String) -> Bool {
        // urlsplit drops tabs and line breaks anywhere and C0 controls and spaces in front.
        var scalars = Substring(url).pythonStripped().unicodeScalars.filter { $0 != "\t" && $0 != "\r" && $0 != "\n" }
        while let first = scalars.first, first.value <= 0x20 { scalars.removeFirst() }
        let text = String(String.UnicodeScalarView(scalars))
        guard let colon = text.firstIndex(of: ":") else { return false }
        let scheme = text[..<colon]
        guard let head = scheme.unicodeScalars.first, head.isASCIILetter,
            scheme.unicodeScalars.allSatisfy({ $0.isASCIILetter || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) }),
            scheme.lowercased() == "https"
        else { return false }
        let rest = text[text.index(after: colon)...]
        guard rest.hasPrefix("//") else { return false }
        let netloc = rest.dropFirst(2).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        // urlsplit raises "Invalid IPv6 URL" for an unbalanced bracket.
        if netloc.contains("[") != netloc.contains("]") { return false }
        return !netloc.isEmpty
    }
}

extension WebData: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let url = reader.required("url") { cursor -> String? in
            guard let url = cursor.string() else { return nil }
            guard Self.isHTTPSWithHost(url) else {
                cursor.context.invalid(cursor.path, "url must be an https URL", input: cursor.value)
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
    /// The text without the characters Python's `str.strip()` removes (`str.isspace`: ASCII
    /// whitespace, U+001C…U+001F, U+0085, U+00A0 and the Unicode spaces).
    func pythonStripped() -> Substring {
        let string = Substring(self)
        let isSpace: (Character) -> Bool = { $0.unicodeScalars.allSatisfy(Self.isPythonSpace) }
        guard let first = string.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = string.lastIndex(where: { !isSpace($0) }) ?? first
        return string[first...last]
    }

    private static func isPythonSpace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x1C...0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
