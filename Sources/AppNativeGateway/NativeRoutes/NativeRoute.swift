/// The ten routes the iOS app calls on every web app's backend (routes.md §1), which the gateway
/// serves itself so each body is validated once and identity never comes from a body field.
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

    public var method: String {
        switch self {
        case .widgets, .approvals: "GET"
        default: "POST"
        }
    }

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

import Foundation
