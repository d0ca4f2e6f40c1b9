public import AppNativeJSON

/// Data of a `list` widget (`models.md` §1.2).
public struct ListData: Sendable, Hashable, ModelEncodable {
    /// `nil` = unset, written as `[]` in response encoding.
    public var items: [ListItem]?
    /// At least 1 when set.
    public var maxVisible: Int?
    public var emptyText: String?

    public init(items: [ListItem]? = nil, maxVisible: Int? = nil, emptyText: String? = nil) {
        self.items = items
        self.maxVisible = maxVisible
        self.emptyText = emptyText
    }

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

extension Cursor {
    /// An integer within the given inclusive bounds.
    func int(atLeast minimum: Int? = nil, atMost maximum: Int? = nil) -> Int? {
        guard let int = int() else { return nil }
        guard check(Double(int), atLeast: minimum.map(Double.init), atMost: maximum.map(Double.init)) else {
            return nil
        }
        return int
    }

    /// A number within the given bounds (`greaterThan` exclusive).
    func number(atLeast minimum: Double? = nil, atMost maximum: Double? = nil, greaterThan: Double? = nil)
        -> JSONNumber?
    {
        guard let number = number(), let double = number.double,
            check(double, atLeast: minimum, atMost: maximum, greaterThan: greaterThan)
        else { return nil }
        return number
    }
}
