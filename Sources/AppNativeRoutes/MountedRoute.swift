import AppNativeHTTP
import AppNativeJSON
import AppNativeModels

/// A route whose callback the host registered, with what the router reads before calling it and
/// how the callback's value is answered (contract/routes.md §3).
///
/// ``NativeRouteCallbacks/mounted(_:)`` is the one place a route meets its callback: a route
/// without one has no `MountedRoute` (404), so serving never meets a missing callback.
enum MountedRoute<User: Sendable> {
    typealias Context = NativeRequestContext<User>

    /// A feed (`GET`): the callback's feed, as JSON.
    case feed(@Sendable (Context) async throws -> JSONValue)
    /// The document upload: the callback's reference (``DocumentReceipt``).
    case document(@Sendable (DocumentUpload, Context) async throws -> JSONValue?)
    /// A JSON body: decodes it and binds the callback to the model.
    case json(@Sendable ([UInt8], ModelDecoder) throws(ModelError) -> BoundCall)

    /// A decoded request's callback: the device its context names, and the call that answers.
    struct BoundCall {
        let deviceID: String
        let call: @Sendable (Context) async throws -> CompleteResponse
    }
}

/// A request model that names the device it comes from (every JSON request of the contract).
protocol DeviceRequest: ModelDecodable {
    var deviceID: String { get }
}

extension DeviceRegistration: DeviceRequest {}
extension LocationUpdate: DeviceRequest {}
extension NotificationActionReceived: DeviceRequest {}
extension WidgetActionReceived: DeviceRequest {}
extension WidgetOptionsRequest: DeviceRequest {}
extension ApprovalDecisionReceived: DeviceRequest {}
extension LiveActivityTokenReceived: DeviceRequest {}

extension NativeRouteCallbacks {
    /// The route's callback, or `nil` when the host left it unmounted.
    func mounted(_ route: NativeRoute) -> MountedRoute<User>? {
        switch route {
        case .devices: registerDevice.map { event(route, $0) }
        case .locations: updateLocation.map { event(route, $0) }
        case .documents: receiveDocument.map { MountedRoute<User>.document($0) }
        case .notificationActions: notificationAction.map { event(route, $0) }
        case .widgets: widgets.map { feed in MountedRoute<User>.feed { try await feed($0).jsonValue(.response) } }
        case .widgetActions:
            widgetAction.map { callback in
                json { model, context in .json(200, (try await callback(model, context) ?? WidgetActionResult()).jsonValue(.response)) }
            }
        case .widgetOptions:
            widgetOptions.map { callback in json { model, context in .json(200, try await callback(model, context).jsonValue(.response)) } }
        case .approvals: approvals.map { feed in MountedRoute<User>.feed { try await feed($0).jsonValue(.response) } }
        case .approvalDecisions:
            approvalDecision.map { callback in
                json { model, context in
                    .json(200, (try await callback(model, context) ?? ApprovalDecisionResult()).jsonValue(.response))
                }
            }
        case .liveActivities: liveActivity.map { event(route, $0) }
        }
    }

    /// An event: the callback returns nothing, the app gets the route's fixed answer.
    private func event<Model: DeviceRequest>(
        _ route: NativeRoute, _ callback: @escaping @Sendable (Model, Context) async throws -> Void
    ) -> MountedRoute<User> {
        let answer: CompleteResponse = if case .noContent = route.contract.answer { .noContent } else { .ok }
        return json { model, context in
            try await callback(model, context)
            return answer
        }
    }

    private func json<Model: DeviceRequest>(
        _ answer: @escaping @Sendable (Model, Context) async throws -> CompleteResponse
    ) -> MountedRoute<User> {
        .json { body, decoder throws(ModelError) in
            let model = try decoder.decode(Model.self, from: body)
            return MountedRoute.BoundCall(deviceID: model.deviceID) { context in try await answer(model, context) }
        }
    }
}
