public import AppNativeModels

/// One accepted `POST {p}/documents` upload (contract/routes.md §2.8), as handed to
/// ``NativeRouteCallbacks/receiveDocument``.
public struct DocumentUpload: Sendable, Hashable {
    /// The text parts, the sanitised filename and the claimed content type.
    public var metadata: DocumentMetadata
    /// The file's bytes: at most the router's ``NativeRouteLimits/maxDocumentBytes``.
    public var content: [UInt8]

    /// An upload (public so hosts can unit-test their callbacks).
    public init(metadata: DocumentMetadata, content: [UInt8]) {
        self.metadata = metadata
        self.content = content
    }

    /// The last path component of the client's filename, never a path; `upload` when it had none.
    public var filename: String { metadata.filename }
    /// The part's `Content-Type` (client-claimed, untrusted), `application/octet-stream` by default.
    public var contentType: String { metadata.contentType }
}
