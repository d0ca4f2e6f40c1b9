public import AppNativeJSON

/// A `video` content block (`contract/models.md` §3.4).
public struct VideoBlock: Sendable, Hashable, ModelEncodable {
    /// Must start with `https://`.
    public var url: String
    /// Must start with `https://`.
    public var poster: String?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(url: String, poster: String? = nil) {
        self.url = url
        self.poster = poster
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
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
