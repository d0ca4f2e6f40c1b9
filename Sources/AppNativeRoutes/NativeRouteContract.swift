package import AppNativeJSON
package import AppNativeModels

/// One native route's contract (contract/routes.md §1–§3): what the app sends, what it gets back
/// and how the OpenAPI document describes it.
///
/// ``NativeRoute/contract`` is the one table of the ten routes. Every server of the routes reads
/// it: ``NativeRoutes`` (with the host's callbacks), the gateway's mediation in front of an
/// upstream, and the gateway's OpenAPI document. Adding a route is a case of ``NativeRoute``, its
/// row here, its models and, for Swift backends, its callback in ``NativeRouteCallbacks``.
package struct NativeRouteContract: Sendable {
    /// The OpenAPI summary.
    package let summary: String
    package let request: Request
    package let answer: Answer

    /// What the app sends.
    package enum Request: Sendable {
        /// `GET`, no body; the device comes as the `device_id` query parameter.
        case feed
        /// `POST` with a JSON body that `model` decodes and validates (and writes for the upstream);
        /// `schema` names it in the OpenAPI document.
        case json(any (ModelDecodable & ModelEncodable).Type, schema: String)
        /// `POST` with the `multipart/form-data` document upload (contract/routes.md §2.8).
        case document
    }

    /// What the app gets when the route succeeds.
    package enum Answer: Sendable {
        /// 200 `{"ok":true}`.
        case ok
        /// 204 without a body.
        case noContent
        /// 200 with the feed `schema`: `validate` keeps the valid entries of an upstream's feed,
        /// re-serialized by the models, and lists the dropped ones; it throws only for a broken
        /// envelope.
        case feed(schema: String, validate: @Sendable (JSONValue) throws(ModelError) -> ValidatedFeed)
        /// 200 with the result `schema` (described as `description`): `validate` re-serializes an
        /// upstream's result by the models; `empty` is what an answer without a body means (the
        /// callback's `nil`).
        case result(schema: String, description: String, empty: JSONValue, validate: @Sendable (JSONValue) throws(ModelError) -> JSONValue)
        /// 200 `{"ok":true}` plus the upload's reference (``DocumentReceipt``).
        case documentReceipt
    }

    /// An upstream's feed as the app gets it, and the entries dropped from it.
    package struct ValidatedFeed {
        package var feed: JSONValue
        package var dropped: [DroppedFeedElement]
    }
}

extension NativeRoute {
    /// This route's row of the table.
    package var contract: NativeRouteContract {
        switch self {
        case .devices:
            NativeRouteContract(
                summary: "Device and push-token registration (absent keeps, null clears, a value sets).",
                request: .json(DeviceRegistration.self, schema: "DeviceRegistration"), answer: .ok)
        case .locations:
            NativeRouteContract(
                summary: "A location update.", request: .json(LocationUpdate.self, schema: "LocationUpdate"), answer: .ok)
        case .documents:
            NativeRouteContract(summary: "A document upload, streamed to the upstream.", request: .document, answer: .documentReceipt)
        case .notificationActions:
            NativeRouteContract(
                summary: "A notification button was tapped.",
                request: .json(NotificationActionReceived.self, schema: "NotificationActionReceived"), answer: .ok)
        case .widgets:
            NativeRouteContract(
                summary: "The dashboard widget feed.", request: .feed,
                answer: .feed(schema: "WidgetFeed") { value throws(ModelError) in
                    // `web` widgets are kept: whether a backend is the app's privileged feed is
                    // the app's decision, not the server's.
                    let decoded = try WidgetFeed.decodeDroppingInvalid(value, allowsWebWidgets: true)
                    return .init(feed: WidgetFeed(widgets: decoded.kept).jsonValue(.response), dropped: decoded.dropped)
                })
        case .widgetActions:
            NativeRouteContract(
                summary: "A widget button or form was submitted.",
                request: .json(WidgetActionReceived.self, schema: "WidgetActionReceived"),
                answer: .result(schema: "WidgetActionResult", description: "The result.", empty: [:]) { value throws(ModelError) in
                    try WidgetActionResult(json: value).jsonValue(.response)
                })
        case .widgetOptions:
            NativeRouteContract(
                summary: "Option lookup for a search or remote select field.",
                request: .json(WidgetOptionsRequest.self, schema: "WidgetOptionsRequest"),
                answer: .result(schema: "WidgetOptionsResult", description: "The options.", empty: ["options": []]) {
                    value throws(ModelError) in try WidgetOptionsResult(json: value).jsonValue(.response)
                })
        case .approvals:
            NativeRouteContract(
                summary: "The pending approvals feed.", request: .feed,
                answer: .feed(schema: "ApprovalFeed") { value throws(ModelError) in
                    let decoded = try ApprovalFeed.decodeDroppingInvalid(value)
                    return .init(feed: ApprovalFeed(approvals: decoded.kept).jsonValue(.response), dropped: decoded.dropped)
                })
        case .approvalDecisions:
            NativeRouteContract(
                summary: "An approval was approved or rejected.",
                request: .json(ApprovalDecisionReceived.self, schema: "ApprovalDecisionReceived"),
                answer: .result(schema: "ApprovalDecisionResult", description: "The result.", empty: [:]) { value throws(ModelError) in
                    try ApprovalDecisionResult(json: value).jsonValue(.response)
                })
        case .liveActivities:
            NativeRouteContract(
                summary: "A Live Activity token or end event.",
                request: .json(LiveActivityTokenReceived.self, schema: "LiveActivityTokenReceived"), answer: .noContent)
        }
    }
}
