public import AppNativeJSON

/// Data of a `chart` widget: at least one series (`contract/models.md` §1.2).
public struct ChartData: Sendable, Hashable, ModelEncodable {
    /// Chart style.
    public enum ChartType: String, Sendable, Hashable, CaseIterable, WireEnum {
        case bar, line, area
    }

    /// `nil` = unset, written as `bar` in response encoding.
    public var type: ChartType?
    public var series: [ChartSeries]
    public var unit: String?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(type: ChartType? = nil, series: [ChartSeries], unit: String? = nil) {
        self.type = type
        self.series = series
        self.unit = unit
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("type", type, default: .bar)
        writer.set("series", series)
        writer.set("unit", unit)
        return writer.value
    }
}

extension ChartData: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let type = reader.nonNull("type") { $0.enumeration(ChartType.self) }
        let series = reader.required("series") { $0.array(min: 1) { $0.model(ChartSeries.self) }
        }
        let unit = reader.optional("unit") { $0.string() }
        guard reader.isClean, let series else { return nil }
        self.init(type: type, series: series, unit: unit)
    }
}
