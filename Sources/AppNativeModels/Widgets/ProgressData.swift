public import AppNativeJSON

/// Data of a `progress` widget (`contract/models.md` §1.2).
public struct ProgressData: Sendable, Hashable, ModelEncodable {
    /// Bar or ring.
    public enum Style: String, Sendable, Hashable, CaseIterable, WireEnum {
        case bar, ring
    }

    public var value: JSONNumber
    public var total: JSONNumber?
    public var caption: String?
    /// `nil` = unset, written as `bar` in response encoding.
    public var style: Style?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(value: JSONNumber, total: JSONNumber? = nil, caption: String? = nil, style: Style? = nil) {
        self.value = value
        self.total = total
        self.caption = caption
        self.style = style
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("value", value)
        writer.set("total", total)
        writer.set("caption", caption)
        writer.set("style", style, default: .bar)
        return writer.value
    }
}

extension ProgressData: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let value = reader.required("value") { $0.number() }
        let total = reader.optional("total") { $0.number() }
        let caption = reader.optional("caption") { $0.string() }
        let style = reader.nonNull("style") { $0.enumeration(Style.self) }
        guard reader.isClean, let value else { return nil }
        self.init(value: value, total: total, caption: caption, style: style)
    }
}
