/// The ten routes the iOS app calls below a web app's native prefix (contract/routes.md §1).
///
/// One table for every server of the routes: ``NativeRoutesHandler`` serves them to a Swift
/// backend's callbacks, and the gateway serves them in front of an upstream.
public enum NativeRoute: String, CaseIterable, Sendable {
    case devices
    case locations
    case documents
    case notificationActions = "notification-actions"
    case widgets
    case widgetActions = "widget-actions"
    case widgetOptions = "widget-options"
    case approvals
    case approvalDecisions = "approval-decisions"
    case liveActivities = "live-activities"

    /// The path below the native prefix (`{p}/devices`).
    public var pathSuffix: String { "/" + rawValue }

    /// The HTTP method the app uses (contract/routes.md §1): `GET` for the two feeds, `POST` otherwise.
    public var method: String {
        switch self {
        case .widgets, .approvals: "GET"
        default: "POST"
        }
    }
}
