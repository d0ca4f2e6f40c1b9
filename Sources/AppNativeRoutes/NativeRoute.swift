/// The ten routes the iOS app calls below a web app's native prefix (contract/routes.md §1).
///
/// One table for every server of the routes (``contract``): ``NativeRoutesHandler`` serves them to
/// a Swift backend's callbacks, and the gateway serves them in front of an upstream.
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

    /// The HTTP method the app uses (contract/routes.md §1): `GET` for the feeds, `POST` otherwise.
    public var method: String {
        if case .feed = contract.request { "GET" } else { "POST" }
    }

    /// Whether `method` is served (HEAD rides along with GET, its body left out).
    package func accepts(_ method: String) -> Bool {
        method == self.method || (self.method == "GET" && method == "HEAD")
    }
}
