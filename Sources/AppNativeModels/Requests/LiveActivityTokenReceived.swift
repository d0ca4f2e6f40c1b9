public import AppNativeJSON

/// `POST {p}/live-activities` (`contract/routes.md` §2.7): a Live Activity token or end event (answered 204).
///
/// No cross-field rule: an `ended` event without `activity_id` is accepted, as the contract says.
public struct LiveActivityTokenReceived: Sendable, Hashable, ModelDecodable, ModelEncodable {
    /// What happened to the activity.
    public enum Event: String, Sendable, Hashable, CaseIterable, WireEnum {
        case token
        case pushToStartToken = "push_to_start_token"
        case ended
    }

    public var deviceID: String
    public var event: Event
    /// Set for `token` and `ended`.
    public var activityID: String?
    /// Set for `token` and `push_to_start_token`.
    public var pushToken: String?
    /// Unverified client hint.
    public var userEmail: String?

    /// A token event.
    public init(
        deviceID: String, event: Event, activityID: String? = nil, pushToken: String? = nil, userEmail: String? = nil
    ) {
        self.deviceID = deviceID
        self.event = event
        self.activityID = activityID
        self.pushToken = pushToken
        self.userEmail = userEmail
    }

    /// Decodes a snake_case request body.
    ///
    /// - Throws: ``ModelError`` listing every issue.
    public init(json: JSONValue) throws(ModelError) { self = try Self.decode(json) }

    /// The snake_case body.
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("device_id", deviceID)
        writer.set("event", event)
        writer.set("activity_id", activityID)
        writer.set("push_token", pushToken)
        writer.set("user_email", userEmail)
        return writer.value
    }
}

extension LiveActivityTokenReceived: ObjectDecodable {
    static var keyStyle: KeyStyle { .snakeCase }

    init?(_ reader: ObjectReader) {
        let deviceID = reader.required("device_id") { $0.string() }
        let event = reader.required("event") { $0.enumeration(Event.self) }
        let activityID = reader.optional("activity_id") { $0.string() }
        let pushToken = reader.optional("push_token") { $0.string() }
        let userEmail = reader.optional("user_email") { $0.string() }
        guard reader.isClean, let deviceID, let event else { return nil }
        self.init(deviceID: deviceID, event: event, activityID: activityID, pushToken: pushToken, userEmail: userEmail)
    }
}
