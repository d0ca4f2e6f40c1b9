/// How tall a native surface opens (`contract/models.md` §3); the app defaults forms to `large` and
/// content to `medium`.
public enum SurfaceSize: String, Sendable, Hashable, CaseIterable, WireEnum {
    case full, large, medium, fit
}
