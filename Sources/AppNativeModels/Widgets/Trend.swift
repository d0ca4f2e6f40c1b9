public import AppNativeJSON

/// A KPI or stat trend arrow (`contract/models.md` §1.2).
public struct Trend: Sendable, Hashable, ModelEncodable {
    /// Arrow direction.
    public enum Direction: String, Sendable, Hashable, CaseIterable, WireEnum {
        case up, down, flat
    }

    /// `nil` = unset, written as `flat` in response encoding.
    public var direction: Direction?
    public var text: String?
    /// Whether the movement is good news (colours the arrow); `nil` lets the app decide.
    public var positive: Bool?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(direction: Direction? = nil, text: String? = nil, positive: Bool? = nil) {
        self.direction = direction
        self.text = text
        self.positive = positive
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("direction", direction, default: .flat)
        writer.set("text", text)
        writer.set("positive", positive)
        return writer.value
    }
}

extension Trend: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let direction = reader.nonNull("direction") { $0.enumeration(Direction.self) }
        let text = reader.optional("text") { $0.string() }
        let positive = reader.optional("positive") { $0.bool() }
        guard reader.isClean else { return nil }
        self.init(direction: direction, text: text, positive: positive)
    }
}
