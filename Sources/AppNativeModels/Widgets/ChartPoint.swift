public import AppNativeJSON

/// One point of a chart series: a category or number on x, a number on y (`contract/models.md` §1.2).
public struct ChartPoint: Sendable, Hashable, ModelEncodable {
    public var x: ScalarValue
    public var y: JSONNumber

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(x: ScalarValue, y: JSONNumber) {
        self.x = x
        self.y = y
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("x", x)
        writer.set("y", y)
        return writer.value
    }
}

extension ChartPoint: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let x = reader.required("x") { $0.scalar() }
        let y = reader.required("y") { $0.number() }
        guard reader.isClean, let x, let y else { return nil }
        self.init(x: x, y: y)
    }
}
