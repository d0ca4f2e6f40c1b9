/// Horizontal alignment of text and table columns (`contract/models.md` §3.4).
public enum TextAlignment: String, Sendable, Hashable, CaseIterable, WireEnum {
    case leading, center, trailing
}
