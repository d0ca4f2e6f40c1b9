public import AppNativeJSON

/// What a `share` step hands to the share sheet (`contract/models.md` §3.3).
public struct ShareContent: Sendable, Hashable, ModelEncodable {
    public var text: String?
    public var url: String?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(text: String? = nil, url: String? = nil) {
        self.text = text
        self.url = url
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("text", text)
        writer.set("url", url)
        return writer.value
    }
}

extension ShareContent: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let text = reader.optional("text") { $0.string() }
        let url = reader.optional("url") { $0.string() }
        guard reader.isClean else { return nil }
        self.init(text: text, url: url)
    }
}
