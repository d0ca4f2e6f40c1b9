public import AppNativeJSON

/// A file a native form uploaded, as the page posts it back to the host (`contract/models.md` §7,
/// `contract/routes.md` §5).
public struct NativeFileRef: Sendable, Hashable, ModelDecodable, ModelEncodable {
    public var name: String
    public var mime: String
    /// Bytes, ≥ 0.
    public var size: Int
    /// The reference the upload callback returned, else the `upload_id`; non-empty.
    public var ref: String

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(name: String, mime: String, size: Int, ref: String) {
        self.name = name
        self.mime = mime
        self.size = size
        self.ref = ref
    }

    /// Decodes one reference object.
    ///
    /// - Throws: ``ModelError`` listing every issue.
    public init(json: JSONValue) throws(ModelError) { self = try Self.decode(json) }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("name", name)
        writer.set("mime", mime)
        writer.set("size", size)
        writer.set("ref", ref)
        return writer.value
    }
}

extension NativeFileRef: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let name = reader.required("name") { $0.string() }
        let mime = reader.required("mime") { $0.string() }
        let size = reader.required("size") { $0.int(atLeast: 0) }
        let ref = reader.required("ref") { $0.nonEmptyString() }
        guard reader.isClean, let name, let mime, let size, let ref else { return nil }
        self.init(name: name, mime: mime, size: size, ref: ref)
    }
}
