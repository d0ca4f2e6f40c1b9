/// Resolves the file references a native form posts, with the all-or-nothing rule of
/// `contract/routes.md` §5, for Swift backends.
///
/// Storage is the host's: key uploads by owner and `upload_id`, expire unreferenced ones.
public enum FileRefResolver: Sendable {
    /// One result per input ref, in input order, or a 422 naming every ref that did not resolve.
    ///
    /// Each distinct ref is looked up once (duplicates in the input are allowed and repeat the
    /// result). Nothing is returned when any ref is unknown, expired or another user's.
    ///
    /// - Parameters:
    ///   - refs: the posted references (``PostedFileRef/ref``), in the page's order.
    ///   - lookup: the host's lookup, scoped to the authenticated user; `nil` = unknown.
    /// - Throws: ``ModelError`` with code `.unknownUploadReference` (422, detail
    ///   `{"message":"Unknown or expired upload reference","refs":[…]}`, refs distinct and in
    ///   first-seen order), or whatever `lookup` throws.
    public static func resolve<Resolved>(_ refs: [String], lookup: (String) throws -> Resolved?) throws -> [Resolved] {
        var found: [String: Resolved] = [:]
        var looked = Set<String>()
        var missing: [String] = []
        for ref in refs where looked.insert(ref).inserted {
            if let resolved = try lookup(ref) {
                found[ref] = resolved
            } else {
                missing.append(ref)
            }
        }
        guard missing.isEmpty else {
            throw ModelError(
                .unknownUploadReference, unknownReferences: missing,
                reason: "\(missing.count) upload reference(s) unknown or expired")
        }
        return refs.map { found[$0]! }
    }
}
