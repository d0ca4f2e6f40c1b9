public import AppNativeJSON

/// An `image` content block: an https URL or an inline `data:image/` URI (`contract/models.md` §3.4).
public struct ImageBlock: Sendable, Hashable, ModelEncodable {
    /// How the image fills its frame.
    public enum Fit: String, Sendable, Hashable, CaseIterable, WireEnum {
        case fit, fill
    }

    /// Clip shape.
    public enum Shape: String, Sendable, Hashable, CaseIterable, WireEnum {
        case rounded, circle, none
    }

    /// Must start with `https://`.
    public var url: String?
    /// Must start with `data:image/`; at most 1 MiB decoded.
    public var data: String?
    public var alt: String?
    public var caption: String?
    /// Points, > 0.
    public var height: JSONNumber?
    public var fit: Fit?
    public var shape: Shape?
    public var tapToZoom: Bool?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(url: String? = nil, data: String? = nil, alt: String? = nil, caption: String? = nil, height: JSONNumber? = nil, fit: Fit? = nil, shape: Shape? = nil, tapToZoom: Bool? = nil) {
        self.url = url
        self.data = data
        self.alt = alt
        self.caption = caption
        self.height = height
        self.fit = fit
        self.shape = shape
        self.tapToZoom = tapToZoom
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("url", url)
        writer.set("data", data)
        writer.set("alt", alt)
        writer.set("caption", caption)
        writer.set("height", height)
        writer.set("fit", fit)
        writer.set("shape", shape)
        writer.set("tapToZoom", tapToZoom)
        return writer.value
    }
}

extension ImageBlock: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let url = reader.optional("url") { $0.httpsURL() }
        let data = reader.optional("data") { $0.imageDataURI() }
        let alt = reader.optional("alt") { $0.string() }
        let caption = reader.optional("caption") { $0.string() }
        let height = reader.optional("height") { $0.number(greaterThan: 0) }
        let fit = reader.optional("fit") { $0.enumeration(Fit.self) }
        let shape = reader.optional("shape") { $0.enumeration(Shape.self) }
        let tapToZoom = reader.optional("tapToZoom") { $0.bool() }
        if reader.isAbsentOrNull("url"), reader.isAbsentOrNull("data") {
            reader.invalid(nil, "an image needs url or data")
        }
        guard reader.isClean else { return nil }
        self.init(url: url, data: data, alt: alt, caption: caption, height: height, fit: fit, shape: shape, tapToZoom: tapToZoom)
    }
}
