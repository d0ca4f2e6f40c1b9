/// Where a `photo` field takes pictures from (`contract/models.md` §2.2); the app uses `both` when unset.
public enum PhotoSource: String, Sendable, Hashable, CaseIterable, WireEnum {
    case camera, library, both
}
