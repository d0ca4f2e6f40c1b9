public import AppNativeRoutes
import Foundation

/// What only the gateway needs to know about a native route: where its events are forwarded and
/// how its body and answer are checked on the way.
extension NativeRoute {
    /// `NATIVE_UPSTREAM_<ROUTE>_URL`: where this route's events go instead of the same path on
    /// `UPSTREAM_URL`.
    public var upstreamURLSetting: String {
        "NATIVE_UPSTREAM_" + rawValue.uppercased().replacingOccurrences(of: "-", with: "_") + "_URL"
    }

    /// What the route's body and answer are, which decides its filter and its mediator.
    enum Shape {
        /// A JSON event; the app gets `{"ok":true}` (or 204 for live activities).
        case event
        /// A GET feed the upstream answers; invalid entries are dropped.
        case feed
        /// A JSON request whose upstream answer is a result validated as a whole.
        case result
        /// The multipart document upload.
        case document
    }

    var shape: Shape {
        switch self {
        case .devices, .locations, .notificationActions, .liveActivities: .event
        case .widgets, .approvals: .feed
        case .widgetActions, .widgetOptions, .approvalDecisions: .result
        case .documents: .document
        }
    }
}
