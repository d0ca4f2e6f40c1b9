public import AppNativeJSON

/// A `file` content block: a download link (`contract/models.md` §3.4).
public struct FileBlock: Sendable, Hashable, ModelEncodable {
    /// Must start with `https://`.
    public var url: String
    public var name: String?
    public var mime: String?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(url: String, name: String? = nil, mime: String? = nil) {
        self.url = url
        self.name = name
        self.mime = mime
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("url", url)
        writer.set("name", name)
        writer.set("mime", mime)
        return writer.value
    }
}

extension FileBlock: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let url = reader.required("url") { $0.httpsURL() }
        let name = reader.optional("name") { $0.string() }
        let mime = reader.optional("mime") { $0.string() }
        guard reader.isClean, let url else { return nil }
        self.init(url: url, name: name, mime: mime)
    }
}
