public import AppNativeJSON

/// One entry of a site's widget manifest `[0.6]` (`contract/models.md` §1.3): a host-side convention for
/// `web` widgets, not part of the app contract.
public struct SiteWidgetManifestEntry: Sendable, Hashable, ModelEncodable {
    /// 1…99.
    public var n: Int
    /// 1…60 characters (Unicode scalars, as Python counts).
    public var title: String
    /// `nil` = unset, written as `medium`.
    public var size: WidgetSize?
    /// `nil` = unset, written as `false`.
    public var scrollable: Bool?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(n: Int, title: String, size: WidgetSize? = nil, scrollable: Bool? = nil) {
        self.n = n
        self.title = title
        self.size = size
        self.scrollable = scrollable
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("n", n)
        writer.set("title", title)
        writer.set("size", size, default: .medium)
        writer.set("scrollable", scrollable, default: false)
        return writer.value
    }

    /// `MAX` entries of one manifest.
    public static let maxEntries = 20
    /// Largest manifest document, in bytes.
    public static let maxManifestBytes = 16_384

    /// Decodes a manifest document: a JSON array of at most 20 entries, at most 16384 bytes.
    ///
    /// - Throws: ``ModelError``: `.bodyTooLarge` over 16384 bytes; `.invalid` with every issue
    ///   otherwise (more than 20 entries is a `too_large` issue).
    public static func decodeManifest(_ bytes: [UInt8]) throws(ModelError) -> [SiteWidgetManifestEntry] {
        let value = try ModelDecoder(maxBodyBytes: maxManifestBytes).parse(bytes)
        let context = DecodingContext()
        let entries = Cursor(value: value, path: [], context: context).array(max: maxEntries, maxIsLimit: true) {
            $0.model(SiteWidgetManifestEntry.self)
        }
        guard let entries, context.issues.isEmpty else { throw ModelError(issues: context.issues) }
        return entries
    }
}

extension SiteWidgetManifestEntry: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let n = reader.required("n") { $0.int(atLeast: 1, atMost: 99) }
        let title = reader.required("title") { cursor -> String? in
            guard let title = cursor.string() else { return nil }
            let length = title.unicodeScalars.count
            if length < 1 || length > 60 {
                cursor.context.report(
                    cursor.path, length < 1 ? "string_too_short" : "string_too_long",
                    "String should have \(length < 1 ? "at least 1" : "at most 60") character\(length < 1 ? "" : "s")",
                    input: cursor.value)
                return nil
            }
            return title
        }
        let size = reader.nonNull("size") { $0.enumeration(WidgetSize.self) }
        let scrollable = reader.nonNull("scrollable") { $0.bool() }
        guard reader.isClean, let n, let title else { return nil }
        self.init(n: n, title: title, size: size, scrollable: scrollable)
    }
}
