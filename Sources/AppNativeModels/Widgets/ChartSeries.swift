public import AppNativeJSON

/// One series of a `chart` widget; `points` is required but may be empty (`contract/models.md` §1.2).
public struct ChartSeries: Sendable, Hashable, ModelEncodable {
    public var name: String?
    /// Free string, not validated (`Hex` in the contract).
    public var color: String?
    public var points: [ChartPoint]

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(name: String? = nil, color: String? = nil, points: [ChartPoint]) {
        self.name = name
        self.color = color
        self.points = points
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("name", name)
        writer.set("color", color)
        writer.set("points", points)
        return writer.value
    }
}

extension ChartSeries: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let name = reader.optional("name") { $0.string() }
        let color = reader.optional("color") { $0.string() }
        let points = reader.required("points") { $0.array { $0.model(ChartPoint.self) } }
        guard reader.isClean, let points else { return nil }
        self.init(name: name, color: color, points: points)
    }
}
