public import AppNativeJSON

/// One element of the list a page posts to a host endpoint: a full ``NativeFileRef`` or a bare
/// ref string (`contract/routes.md` §5).
public enum PostedFileRef: Sendable, Hashable, ModelEncodable {
    case file(NativeFileRef)
    /// A non-empty ref string.
    case bare(String)

    /// The reference to look up.
    public var ref: String {
        switch self {
        case .file(let file): file.ref
        case .bare(let ref): ref
        }
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        switch self {
        case .file(let file): file.jsonValue(encoding)
        case .bare(let ref): .string(ref)
        }
    }

    /// Decodes a posted list: each element an object or a non-empty string.
    ///
    /// - Throws: ``ModelError`` listing every issue, paths from the list (`[2, "size"]`).
    public static func decodeList(_ json: JSONValue) throws(ModelError) -> [PostedFileRef] {
        let context = DecodingContext()
        let list = Cursor(value: json, path: [], context: context).array { element -> PostedFileRef? in
            if case .string = element.value { return element.nonEmptyString().map(PostedFileRef.bare) }
            return element.model(NativeFileRef.self).map(PostedFileRef.file)
        }
        guard let list, context.issues.isEmpty else { throw ModelError(issues: context.issues) }
        return list
    }
}
