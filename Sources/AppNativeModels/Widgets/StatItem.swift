public import AppNativeJSON

/// One labelled value of a `stats` widget (`contract/models.md` §1.2).
public struct StatItem: Sendable, Hashable, ModelEncodable {
    public var label: String
    public var value: ScalarValue
    public var trend: Trend?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(label: String, value: ScalarValue, trend: Trend? = nil) {
        self.label = label
        self.value = value
        self.trend = trend
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("label", label)
        writer.set("value", value)
        writer.set("trend", trend)
        return writer.value
    }
}

extension StatItem: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let label = reader.required("label") { $0.string() }
        let value = reader.required("value") { $0.scalar() }
        let trend = reader.optional("trend") { $0.model(Trend.self) }
        guard reader.isClean, let label, let value else { return nil }
        self.init(label: label, value: value, trend: trend)
    }
}
