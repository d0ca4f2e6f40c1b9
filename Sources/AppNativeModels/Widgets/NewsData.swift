public import AppNativeJSON

/// Data of a `news` widget (`contract/models.md` §1.2).
public struct NewsData: Sendable, Hashable, ModelEncodable {
    /// `nil` = unset, written as `[]` in response encoding.
    public var items: [NewsItem]?
    public var emptyText: String?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(items: [NewsItem]? = nil, emptyText: String? = nil) {
        self.items = items
        self.emptyText = emptyText
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("items", items, defaultEmpty: ())
        writer.set("emptyText", emptyText)
        return writer.value
    }
}

extension NewsData: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let items = reader.nonNull("items") { $0.array { $0.model(NewsItem.self) } }
        let emptyText = reader.optional("emptyText") { $0.string() }
        guard reader.isClean else { return nil }
        self.init(items: items, emptyText: emptyText)
    }
}
