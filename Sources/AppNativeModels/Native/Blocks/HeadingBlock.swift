public import AppNativeJSON

/// A `heading` content block (`contract/models.md` §3.4).
public struct HeadingBlock: Sendable, Hashable, ModelEncodable {
    public var text: String
    /// 1, 2 or 3.
    public var level: Int?
    public var icon: String?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(text: String, level: Int? = nil, icon: String? = nil) {
        self.text = text
        self.level = level
        self.icon = icon
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("text", text)
        writer.set("level", level)
        writer.set("icon", icon)
        return writer.value
    }
}

extension HeadingBlock: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let text = reader.required("text") { $0.string() }
        let level = reader.optional("level") { $0.headingLevel() }
        let icon = reader.optional("icon") { $0.string() }
        guard reader.isClean, let text else { return nil }
        self.init(text: text, level: level, icon: icon)
    }
}
