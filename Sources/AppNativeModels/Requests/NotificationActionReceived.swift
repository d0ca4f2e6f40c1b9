public import AppNativeJSON

/// `POST {p}/notification-actions` (`contract/routes.md` §2.3): a tapped notification button.
public struct NotificationActionReceived: Sendable, Hashable, ModelDecodable, ModelEncodable {
    public var deviceID: String
    /// The tapped button's `id`; `"acknowledge"` for the critical-alert button.
    public var action: String
    /// The original push's custom top-level keys; must be an object when present.
    public var data: JSONObject?

    /// A notification action.
    public init(deviceID: String, action: String, data: JSONObject? = nil) {
        self.deviceID = deviceID
        self.action = action
        self.data = data
    }

    /// Decodes a snake_case request body.
    ///
    /// - Throws: ``ModelError`` listing every issue.
    public init(json: JSONValue) throws(ModelError) { self = try Self.decode(json) }

    /// The snake_case body.
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("device_id", deviceID)
        writer.set("action", action)
        writer.set("data", data)
        return writer.value
    }
}

extension NotificationActionReceived: ObjectDecodable {
    static var keyStyle: KeyStyle { .snakeCase }

    init?(_ reader: ObjectReader) {
        let deviceID = reader.required("device_id") { $0.string() }
        let action = reader.required("action") { $0.string() }
        let data = reader.optional("data") { $0.object() }
        guard reader.isClean, let deviceID, let action else { return nil }
        self.init(deviceID: deviceID, action: action, data: data)
    }
}
