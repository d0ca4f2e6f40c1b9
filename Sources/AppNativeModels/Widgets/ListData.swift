public import AppNativeJSON

/// Data of a `list` widget (`contract/models.md` §1.2).
public struct ListData: Sendable, Hashable, ModelEncodable {
    /// `nil` = unset, written as `[]` in response encoding.
    public var items: [ListItem]?
    /// At least 1 when set.
    public var maxVisible: Int?
    public var emptyText: String?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(items: [ListItem]? = nil, maxVisible: Int? = nil, emptyText: String? = nil) {
        self.items = items
        self.maxVisible = maxVisible
        self.emptyText = emptyText
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("items", items, defaultEmpty: ())
        writer.set("maxVisible", maxVisible)
        writer.set("emptyText", emptyText)
        return writer.value
    }
}

extension ListData: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let items = reader.nonNull("items") { $0.array { $0.model(ListItem.self) } }
        let maxVisible = reader.optional("maxVisible") { $0.int(atLeast: 1) }
        let emptyText = reader.optional("emptyText") { $0.string() }
        guard reader.isClean else { return nil }
        self.init(items: items, maxVisible: maxVisible, emptyText: emptyText)
    }
}
