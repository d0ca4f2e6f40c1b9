internal import AppNativeJSON

/// The result of reading a feed leniently, the way the app does (`models.md` §1.1, §4): each
/// invalid element is dropped on its own and the valid ones are kept.
///
/// The gateway logs and counts ``dropped`` so a backend author learns why a widget or approval
/// never reached the phone.
public struct FeedDecoding<Element: Sendable & Hashable>: Sendable, Hashable {
    /// Valid elements in feed order.
    public var kept: [Element]
    /// Dropped elements in feed order, each with its reasons.
    public var dropped: [DroppedFeedElement]

    public init(kept: [Element], dropped: [DroppedFeedElement]) {
        self.kept = kept
        self.dropped = dropped
    }
}

/// One feed element that was left out, and why.
public struct DroppedFeedElement: Sendable, Hashable, CustomStringConvertible {
    /// Position in the feed's list.
    public var index: Int
    /// The element's `id` when it had a string one, for the log line.
    public var id: String?
    /// Every rule it broke; paths run from the feed's root (`["widgets", 3, "data", "items"]`).
    public var issues: [ValidationIssue]

    public init(index: Int, id: String?, issues: [ValidationIssue]) {
        self.index = index
        self.id = id
        self.issues = issues
    }

    /// The failing paths, for metric labels and logs (`widgets[3].data.items`).
    public var failingPaths: [String] { issues.map(\.pathDescription) }

    /// `#index (id): issues`.
    public var description: String {
        "#\(index) (\(id ?? "no id")): " + issues.map(\.description).joined(separator: "; ")
    }
}

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
