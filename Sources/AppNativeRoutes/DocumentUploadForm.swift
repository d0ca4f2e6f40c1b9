package import AppNativeHTTP

/// How a `POST {p}/documents` body is read (contract/routes.md §2.8): the one set of limits and
/// the form reader every server of the routes uses, ``NativeRoutes`` and the gateway alike.
package enum DocumentUploadForm {
    /// Most parts in one upload (413 past it). The contract has eight fields and one file; the
    /// cap leaves room for repeated fields while bounding the work and the per-part state one
    /// upload can cost. The reference's own caps (1000 fields and 1000 files) are far above what
    /// the app sends (docs/migration.md).
    package static let maxParts = 64
    /// Largest text field: `context` is the longest the app sends.
    package static let maxFieldBytes: UInt64 = 65_536
    /// The part whose content is the upload.
    package static let fileFieldName = "file"

    /// The reader of an upload whose file is refused past `maxFileBytes` (`nil`: counted by the
    /// caller), or `nil` when `contentType` is not `multipart/form-data` with a valid boundary.
    package static func reader(contentType: String?, maxFileBytes: UInt64?) -> MultipartFormReader? {
        let limits = MultipartLimits(maxParts: maxParts, maxFieldBytes: maxFieldBytes, maxFileBytes: maxFileBytes)
        return MultipartFormReader(contentType: contentType, limits: limits, fileFieldName: fileFieldName)
    }
}
