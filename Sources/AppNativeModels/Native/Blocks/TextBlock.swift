public import AppNativeJSON

/// A `text` content block (`contract/models.md` §3.4).
public struct TextBlock: Sendable, Hashable, ModelEncodable {
    /// Text size.
    public enum Style: String, Sendable, Hashable, CaseIterable, WireEnum {
        case body, caption, footnote
    }

    public var markdown: String
    public var style: Style?
    public var align: TextAlignment?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(markdown: String, style: Style? = nil, align: TextAlignment? = nil) {
        self.markdown = markdown
        self.style = style
        self.align = align
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("markdown", markdown)
        writer.set("style", style)
        writer.set("align", align)
        return writer.value
    }
}

extension TextBlock: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let markdown = reader.required("markdown") { $0.string() }
        let style = reader.optional("style") { $0.enumeration(Style.self) }
        let align = reader.optional("align") { $0.enumeration(TextAlignment.self) }
        guard reader.isClean, let markdown else { return nil }
        self.init(markdown: markdown, style: style, align: align)
    }
}
