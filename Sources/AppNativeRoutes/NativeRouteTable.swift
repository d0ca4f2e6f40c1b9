/// The ten routes below the prefix (routes.md §1). Private to this module: the gateway has its
/// own table for its forwarding shapes.
enum NativeRouteTable: String, CaseIterable, Sendable {
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

    var method: String {
        switch self {
        case .widgets, .approvals: "GET"
        default: "POST"
        }
    }

    /// Whether `method` is served (HEAD rides along with GET, its body left out).
    func accepts(_ method: String) -> Bool {
        method == self.method || (self.method == "GET" && method == "HEAD")
    }

    func isMounted<User: Sendable>(in callbacks: NativeRouteCallbacks<User>) -> Bool {
        switch self {
        case .devices: callbacks.registerDevice != nil
        case .locations: callbacks.updateLocation != nil
        case .documents: callbacks.receiveDocument != nil
        case .notificationActions: callbacks.notificationAction != nil
        case .widgets: callbacks.widgets != nil
        case .widgetActions: callbacks.widgetAction != nil
        case .widgetOptions: callbacks.widgetOptions != nil
        case .approvals: callbacks.approvals != nil
        case .approvalDecisions: callbacks.approvalDecision != nil
        case .liveActivities: callbacks.liveActivity != nil
        }
    }
}
