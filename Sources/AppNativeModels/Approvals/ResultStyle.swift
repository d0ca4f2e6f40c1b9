/// The tone of a result message the app shows after an action or decision (`contract/routes.md` §3.2, §3.5).
public enum ResultStyle: String, Sendable, Hashable, CaseIterable, WireEnum {
    case info, success, warning, error
}
