public import AppNativeJSON

/// Data of a `kpi` widget: one headline value (`contract/models.md` §1.2).
public struct KPIData: Sendable, Hashable, ModelEncodable {
    public var value: ScalarValue
    public var unit: String?
    public var caption: String?
    public var trend: Trend?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(value: ScalarValue, unit: String? = nil, caption: String? = nil, trend: Trend? = nil) {
        self.value = value
        self.unit = unit
        self.caption = caption
        self.trend = trend
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("value", value)
        writer.set("unit", unit)
        writer.set("caption", caption)
        writer.set("trend", trend)
        return writer.value
    }
}

extension KPIData: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let value = reader.required("value") { $0.scalar() }
        let unit = reader.optional("unit") { $0.string() }
        let caption = reader.optional("caption") { $0.string() }
        let trend = reader.optional("trend") { $0.model(Trend.self) }
        guard reader.isClean, let value else { return nil }
        self.init(value: value, unit: unit, caption: caption, trend: trend)
    }
}
