import AppNativeHTTP
import AppNativeJSON
import AppNativeModels

/// A route whose callback the host registered, with what the router reads before calling it and
/// how the callback's value is answered (contract/routes.md §3).
///
/// ``NativeRouteCallbacks`` keys them by route as the callbacks are set: a route without one has
/// no `MountedRoute` (404), so serving never meets a missing callback.
enum MountedRoute<User: Sendable>: Sendable {
    typealias Context = NativeRequestContext<User>

    /// A feed (`GET`): the callback's feed, as JSON.
    case feed(@Sendable (Context) async throws -> JSONValue)
    /// The document upload: the callback's reference (``DocumentReceipt``).
    case document(@Sendable (DocumentUpload, Context) async throws -> JSONValue?)
    /// A JSON body: decodes it and binds the callback to the model.
    case json(@Sendable ([UInt8], ModelDecoder) throws(ModelError) -> BoundCall)

    /// A decoded request's callback: the device its context names, and the call that answers.
    struct BoundCall: Sendable {
        let deviceID: String
        let call: @Sendable (Context) async throws -> CompleteResponse
    }

    /// A feed route: the callback's feed, response-encoded.
    static func encodedFeed<Feed: ModelEncodable>(_ callback: @escaping @Sendable (Context) async throws -> Feed) -> MountedRoute {
        .feed { try await callback($0).jsonValue(.response) }
    }

    /// An event: the callback returns nothing, the app gets the route's fixed answer.
    static func event<Model: DeviceRequest>(
        _ route: NativeRoute, _ callback: @escaping @Sendable (Model, Context) async throws -> Void
    ) -> MountedRoute {
        let answer: CompleteResponse = if case .noContent = route.contract.answer { .noContent } else { .ok }
        return json { (model: Model, context) in
            try await callback(model, context)
            return answer
        }
    }

    /// A result: the callback's value, or `fallback` when it returns `nil`.
    static func result<Model: DeviceRequest, Result: ModelEncodable>(
        _ callback: @escaping @Sendable (Model, Context) async throws -> Result?, default fallback: Result
    ) -> MountedRoute {
        json { (model: Model, context) in .json(200, (try await callback(model, context) ?? fallback).jsonValue(.response)) }
    }

    /// A result the callback always gives.
    static func result<Model: DeviceRequest, Result: ModelEncodable>(
        _ callback: @escaping @Sendable (Model, Context) async throws -> Result
    ) -> MountedRoute {
        json { (model: Model, context) in .json(200, try await callback(model, context).jsonValue(.response)) }
    }

    private static func json<Model: DeviceRequest>(
        _ answer: @escaping @Sendable (Model, Context) async throws -> CompleteResponse
    ) -> MountedRoute {
        .json { body, decoder throws(ModelError) in
            let model = try decoder.decode(Model.self, from: body)
            return BoundCall(deviceID: model.deviceID) { context in try await answer(model, context) }
        }
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
        mountedRoutes[route]
    }
}
