public import AppNativeJSON

/// Data of a `text` widget: inline markdown only (`contract/models.md` §1.2).
public struct TextData: Sendable, Hashable, ModelEncodable {
    public var markdown: String
    public var linkLabel: String?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(markdown: String, linkLabel: String? = nil) {
        self.markdown = markdown
        self.linkLabel = linkLabel
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("markdown", markdown)
        writer.set("linkLabel", linkLabel)
        return writer.value
    }
}

extension TextData: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let markdown = reader.required("markdown") { $0.string() }
        let linkLabel = reader.optional("linkLabel") { $0.string() }
        guard reader.isClean, let markdown else { return nil }
        self.init(markdown: markdown, linkLabel: linkLabel)
    }
}
