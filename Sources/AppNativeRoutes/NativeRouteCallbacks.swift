public import AppNativeJSON
public import AppNativeModels

/// The host backend's side of the ten native routes (contract/routes.md §1): one optional async callback
/// per route, the shape of the Python routers.
///
/// A struct of optional closures rather than a protocol with default methods, because "not
/// implemented" has to be visible to the router: a route whose callback is `nil` is not mounted
/// and answers 404, exactly as a FastAPI app that did not include that router. A protocol's
/// default implementation could only guess an answer (an empty feed, a silent `{"ok":true}`)
/// that the app would take for real data. Closures also let a host capture its stores directly,
/// without a conforming type.
///
/// Every callback runs off the event loop and receives the validated request model plus a
/// ``NativeRequestContext``. Throw ``NativeHTTPError`` to answer with a status of your choice;
/// anything else thrown is answered 500 without its message.
///
/// ```swift
/// var callbacks = NativeRouteCallbacks<VerifiedIdentity>()
/// callbacks.registerDevice = { registration, context in
///     try await store.register(registration, for: context.user)
/// }
/// callbacks.serveWidgets { context in try await store.widgets(for: context.user, device: context.deviceID) }
/// ```
public struct NativeRouteCallbacks<User: Sendable>: Sendable {
    public typealias Context = NativeRequestContext<User>

    /// `POST {p}/devices` → 200 `{"ok":true}`. `pushToken`, `platform` and `userEmail` keep
    /// absent (keep the stored value) apart from `null` (clear it) (contract/routes.md §2.1).
    public var registerDevice: (@Sendable (DeviceRegistration, Context) async throws -> Void)? {
        didSet { mountedRoutes[.devices] = registerDevice.map { .event(.devices, $0) } }
    }
    /// `POST {p}/locations` → 200 `{"ok":true}`.
    public var updateLocation: (@Sendable (LocationUpdate, Context) async throws -> Void)? {
        didSet { mountedRoutes[.locations] = updateLocation.map { .event(.locations, $0) } }
    }
    /// `POST {p}/documents` → 200 `{"ok":true}` or `{"ok":true,"id":…}`.
    ///
    /// Return the stored upload's reference, or `nil`. A non-empty string or an integer becomes
    /// `id`; an object's `"id"` member follows the same rule; anything else (`nil`, booleans,
    /// `""`, fractions, lists) gives no `id` (contract/routes.md §2.8). Must be idempotent per
    /// `metadata.uploadID`: the app re-sends the same upload after a failure.
    public var receiveDocument: (@Sendable (DocumentUpload, Context) async throws -> JSONValue?)? {
        didSet { mountedRoutes[.documents] = receiveDocument.map { .document($0) } }
    }
    /// `POST {p}/notification-actions` → 200 `{"ok":true}`.
    public var notificationAction: (@Sendable (NotificationActionReceived, Context) async throws -> Void)? {
        didSet { mountedRoutes[.notificationActions] = notificationAction.map { .event(.notificationActions, $0) } }
    }
    /// `GET {p}/widgets` → 200 `{"schema":1,"widgets":[…]}`: the full list for this user and
    /// device (missing widgets disappear from the device). See ``serveWidgets(_:)`` for a list.
    public var widgets: (@Sendable (Context) async throws -> WidgetFeed)? {
        didSet { mountedRoutes[.widgets] = widgets.map { .encodedFeed($0) } }
    }
    /// `POST {p}/widget-actions` → 200 with the result; `nil` → `{"ok":true}`.
    public var widgetAction: (@Sendable (WidgetActionReceived, Context) async throws -> WidgetActionResult?)? {
        didSet { mountedRoutes[.widgetActions] = widgetAction.map { .result($0, default: WidgetActionResult()) } }
    }
    /// `POST {p}/widget-options` → 200 `{"options":[…]}`. See ``serveWidgetOptions(_:)`` for a
    /// plain list of options.
    public var widgetOptions: (@Sendable (WidgetOptionsRequest, Context) async throws -> WidgetOptionsResult)? {
        didSet { mountedRoutes[.widgetOptions] = widgetOptions.map { .result($0) } }
    }
    /// `GET {p}/approvals` → 200 `{"approvals":[…]}`: every pending approval of this user.
    /// See ``serveApprovals(_:)`` for a list.
    public var approvals: (@Sendable (Context) async throws -> ApprovalFeed)? {
        didSet { mountedRoutes[.approvals] = approvals.map { .encodedFeed($0) } }
    }
    /// `POST {p}/approval-decisions` → 200 with the result; `nil` → `{"ok":true}`.
    public var approvalDecision: (@Sendable (ApprovalDecisionReceived, Context) async throws -> ApprovalDecisionResult?)? {
        didSet { mountedRoutes[.approvalDecisions] = approvalDecision.map { .result($0, default: ApprovalDecisionResult()) } }
    }
    /// `POST {p}/live-activities` → 204 with no body.
    public var liveActivity: (@Sendable (LiveActivityTokenReceived, Context) async throws -> Void)? {
        didSet { mountedRoutes[.liveActivities] = liveActivity.map { .event(.liveActivities, $0) } }
    }

    /// Each set callback as its route serves it, keyed by route: a callback's `didSet` is the one
    /// place it meets its route, so serving never meets a missing or mismatched callback.
    private(set) var mountedRoutes: [NativeRoute: MountedRoute<User>] = [:]

    /// No route mounted; set the callbacks of the routes this backend serves.
    public init() {}

    /// Serves `GET {p}/widgets` from a plain list (wrapped as `{"schema":1,"widgets":[…]}`).
    public mutating func serveWidgets(_ list: @escaping @Sendable (Context) async throws -> [Widget]) {
        widgets = { context in WidgetFeed(widgets: try await list(context)) }
    }

    /// Serves `GET {p}/approvals` from a plain list (wrapped as `{"approvals":[…]}`).
    public mutating func serveApprovals(_ list: @escaping @Sendable (Context) async throws -> [Approval]) {
        approvals = { context in ApprovalFeed(approvals: try await list(context)) }
    }

    /// Serves `POST {p}/widget-options` from a plain list of options (wrapped as
    /// `{"options":[…]}`, contract/routes.md §3.3).
    public mutating func serveWidgetOptions(
        _ list: @escaping @Sendable (WidgetOptionsRequest, Context) async throws -> [ActionOption]
    ) {
        widgetOptions = { request, context in WidgetOptionsResult(options: try await list(request, context)) }
    }
}
