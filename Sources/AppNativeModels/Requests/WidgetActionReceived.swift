public import AppNativeJSON

/// `POST {p}/widget-actions` (`contract/routes.md` §2.4): a widget button tap with its form values.
public struct WidgetActionReceived: Sendable, Hashable, ModelDecodable, ModelEncodable {
    /// Where the tap happened. Only the Home Screen is named; any other string is refused
    /// (the contract's documented trap: a future value would be rejected too).
    public enum Source: String, Sendable, Hashable, CaseIterable, WireEnum {
        case homeScreen
    }

    public var deviceID: String
    public var widgetID: String
    /// The button `id`.
    public var actionID: String
    /// The list row `id` when the button sat on a row.
    public var itemID: String?
    /// Form values by field id; `{}` when absent, `null` refused.
    public var values: JSONObject
    /// Unverified client hint.
    public var userEmail: String?
    public var source: Source?

    /// A widget action.
    public init(
        deviceID: String, widgetID: String, actionID: String, itemID: String? = nil, values: JSONObject = [:],
        userEmail: String? = nil, source: Source? = nil
    ) {
        self.deviceID = deviceID
        self.widgetID = widgetID
        self.actionID = actionID
        self.itemID = itemID
        self.values = values
        self.userEmail = userEmail
        self.source = source
    }

    /// Decodes a snake_case request body.
    ///
    /// - Throws: ``ModelError`` listing every issue.
    public init(json: JSONValue) throws(ModelError) { self = try Self.decode(json) }

    /// The snake_case body; `values` is always written.
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("device_id", deviceID)
        writer.set("widget_id", widgetID)
        writer.set("action_id", actionID)
        writer.set("item_id", itemID)
        writer.set("values", values)
        writer.set("user_email", userEmail)
        writer.set("source", source)
        return writer.value
    }
}

extension WidgetActionReceived: ObjectDecodable {
    static var keyStyle: KeyStyle { .snakeCase }

    init?(_ reader: ObjectReader) {
        let deviceID = reader.required("device_id") { $0.string() }
        let widgetID = reader.required("widget_id") { $0.string() }
        let actionID = reader.required("action_id") { $0.string() }
        let itemID = reader.optional("item_id") { $0.string() }
        let values = reader.nonNull("values") { $0.object() }
        let userEmail = reader.optional("user_email") { $0.string() }
        let source = reader.optional("source") { $0.enumeration(Source.self) }
        guard reader.isClean, let deviceID, let widgetID, let actionID else { return nil }
        self.init(
            deviceID: deviceID, widgetID: widgetID, actionID: actionID, itemID: itemID, values: values ?? [:],
            userEmail: userEmail, source: source)
    }
}
