internal import AppNativeJSON

/// Reads feed lists element by element for ``WidgetFeed`` and ``ApprovalFeed``.
enum FeedReader {
    /// Decodes each element of `elements` on its own; `admit` may still refuse a valid element
    /// (with issues to report) after the count limit is applied to the kept ones.
    static func decode<T: ObjectDecodable & Hashable & Sendable>(
        _ elements: [JSONValue], path: [PathComponent], limit: Int, limitName: String,
        admit: (T, [PathComponent]) -> [ValidationIssue] = { _, _ in [] }
    ) -> FeedDecoding<T> {
        var kept: [T] = []
        var dropped: [DroppedFeedElement] = []
        for (index, element) in elements.enumerated() {
            let elementPath = path + [.index(index)]
            let context = DecodingContext()
            let decoded = Cursor(value: element, path: elementPath, context: context).model(T.self)
            let id = element["id"]?.stringValue
            var issues = context.issues
            if let decoded, issues.isEmpty {
                issues = admit(decoded, elementPath)
                if issues.isEmpty, kept.count >= limit {
                    issues = [
                        ValidationIssue(
                            path: elementPath, message: "the app keeps at most \(limit) \(limitName) per web app",
                            type: "too_large", kind: .tooLarge, input: nil)
                    ]
                }
                if issues.isEmpty {
                    kept.append(decoded)
                    continue
                }
            }
            dropped.append(DroppedFeedElement(index: index, id: id, issues: issues))
        }
        return FeedDecoding(kept: kept, dropped: dropped)
    }
}
