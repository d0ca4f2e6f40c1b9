/// The kinds of push the API sends, by their URL path below `/push/`. Parsed once from the path
/// (`PushAPI.admit`, 404 for anything else), so the decoder switches over a closed set.
enum PushKind: String, CaseIterable, Sendable {
    case alert
    case silent
    case critical
    case widgets
    case approvals
    case liveActivityStart = "live-activity/start"
    case liveActivityUpdate = "live-activity/update"
    case liveActivityEnd = "live-activity/end"

    /// The paths, in order, for the 404 that lists them.
    static var paths: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
