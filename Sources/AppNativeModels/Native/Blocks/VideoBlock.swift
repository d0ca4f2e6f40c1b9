public import AppNativeJSON

/// A `video` content block (`models.md` §3.4).
public struct VideoBlock: Sendable, Hashable, ModelEncodable {
    /// Must start with `https://`.
    public var url: String
    /// Must start with `https://`.
    public var poster: String?

    public init(url: String, poster: String? = nil) {
        self.url = url
        self.poster = poster
    }

    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("url", url)
        writer.set("poster", poster)
        return writer.value
    }
}

extension VideoBlock: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let url = reader.required("url") { $0.httpsURL() }
        let poster = reader.optional("poster") { $0.httpsURL() }
        guard reader.isClean, let url else { return nil }
        self.init(url: url, poster: poster)
    }
}
