/// One feed element that was left out, and why.
public struct DroppedFeedElement: Sendable, Hashable, CustomStringConvertible {
    /// Position in the feed's list.
    public var index: Int
    /// The element's `id` when it had a string one, for the log line.
    public var id: String?
    /// Every rule it broke; paths run from the feed's root (`["widgets", 3, "data", "items"]`).
    public var issues: [ValidationIssue]

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
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
