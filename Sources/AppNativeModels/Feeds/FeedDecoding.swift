internal import AppNativeJSON

/// The result of reading a feed leniently, the way the app does (`contract/models.md` §1.1, §4): each
/// invalid element is dropped on its own and the valid ones are kept.
///
/// The gateway logs and counts ``dropped`` so a backend author learns why a widget or approval
/// never reached the phone.
public struct FeedDecoding<Element: Sendable & Hashable>: Sendable, Hashable {
    /// Valid elements in feed order.
    public var kept: [Element]
    /// Dropped elements in feed order, each with its reasons.
    public var dropped: [DroppedFeedElement]

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(kept: [Element], dropped: [DroppedFeedElement]) {
        self.kept = kept
        self.dropped = dropped
    }
}
