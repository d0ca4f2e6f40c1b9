public import AppNativeJSON

/// One badge of a `badges` block (`contract/models.md` §3.4).
public struct BadgeItem: Sendable, Hashable, ModelEncodable {
    public var text: String
    /// `#rrggbb`.
    public var tint: String?
    public var icon: String?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(text: String, tint: String? = nil, icon: String? = nil) {
        self.text = text
        self.tint = tint
        self.icon = icon
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("text", text)
        writer.set("tint", tint)
        writer.set("icon", icon)
        return writer.value
    }
}

extension BadgeItem: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let text = reader.required("text") { $0.string() }
        let tint = reader.optional("tint") { $0.tint() }
        let icon = reader.optional("icon") { $0.string() }
        guard reader.isClean, let text else { return nil }
        self.init(text: text, tint: tint, icon: icon)
    }
}
