extension NativeRoute {
    /// Whether `method` is served (HEAD rides along with GET, its body left out).
    func accepts(_ method: String) -> Bool {
        method == self.method || (self.method == "GET" && method == "HEAD")
    }

    /// Whether the backend registered a callback for this route; an unmounted route is a 404.
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
