public import AppNativeJSON

/// A `callout` content block (`contract/models.md` §3.4).
public struct CalloutBlock: Sendable, Hashable, ModelEncodable {
    public var style: ResultStyle
    public var title: String?
    public var text: String

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(style: ResultStyle, title: String? = nil, text: String) {
        self.style = style
        self.title = title
        self.text = text
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("style", style)
        writer.set("title", title)
        writer.set("text", text)
        return writer.value
    }
}

extension CalloutBlock: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let style = reader.required("style") { $0.enumeration(ResultStyle.self) }
        let title = reader.optional("title") { $0.string() }
        let text = reader.required("text") { $0.string() }
        guard reader.isClean, let style, let text else { return nil }
        self.init(style: style, title: title, text: text)
    }
}
