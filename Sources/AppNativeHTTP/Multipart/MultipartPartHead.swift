/// What a part's header section says about it (RFC 7578 §4.2–§4.4).
///
/// Only the fields that decide how a part is handled are kept; other part header fields are
/// checked for syntax and dropped (RFC 7578 §4.8: they are to be ignored).
public struct MultipartPartHead: Sendable, Hashable {
    /// The `name` parameter of Content-Disposition: the form field name. Percent sequences are
    /// not decoded (RFC 7578 §2 leaves that to the form, and WHATWG uses `%22` only as an
    /// escape for the three characters a quoted-string cannot hold).
    public let name: String
    /// The `filename` parameter after quoted-string unescaping, as sent: untrusted and possibly
    /// a path. Use `DocumentMetadata.sanitizedFilename(_:)` (AppNativeModels) before it names anything.
    public let filename: String?
    /// The part's Content-Type value, or nil when absent (RFC 7578 §4.4: then `text/plain` for
    /// a field; the documents route uses `application/octet-stream` for a file).
    public let contentType: String?

    /// - Parameters:
    ///   - name: the form field name.
    ///   - filename: the plain `filename` parameter.
    ///   - contentType: the part's Content-Type.
    public init(name: String, filename: String? = nil, contentType: String? = nil) {
        self.name = name
        self.filename = filename
        self.contentType = contentType
    }

    /// Whether the part is a file (it carries a filename parameter, possibly empty).
    public var isFile: Bool { filename != nil }

    /// The filename to use: `filename` (a `filename*` parameter is ignored, as RFC 7578 §4.2
    /// asks and the Python reference does).
    public var preferredFilename: String? { filename }
}
