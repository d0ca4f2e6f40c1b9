public import AppNativeJSON

/// Data of a `stats` widget: 1…4 items (`contract/models.md` §1.2); 0 or 5 items is invalid.
public struct StatsData: Sendable, Hashable, ModelEncodable {
    public var items: [StatItem]

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(items: [StatItem]) { self.items = items }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("items", items)
        return writer.value
    }
}

extension StatsData: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let items = reader.required("items") { $0.array(min: 1, max: ModelLimits.maxStatItems) { $0.model(StatItem.self) } }
        guard reader.isClean, let items else { return nil }
        self.init(items: items)
    }
}
