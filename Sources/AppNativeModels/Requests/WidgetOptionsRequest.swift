public import AppNativeJSON

/// `POST {p}/widget-options` (`contract/routes.md` §2.5, `contract/models.md` §6): options for a `search` field or
/// a `remote` select, asked for by a widget form or a native form.
public struct WidgetOptionsRequest: Sendable, Hashable, ModelDecodable, ModelEncodable {
    /// Which form asks: exactly one of `widget_id` / `form_id` is non-null on the wire.
    public enum Target: Sendable, Hashable {
        /// A widget's action form (`widget_id`).
        case widget(String)
        /// A native form (`form_id`).
        case form(String)
    }

    public var deviceID: String
    public var target: Target
    public var fieldID: String
    /// What the user typed; `""` when absent, `null` refused.
    public var query: String
    /// Everything entered so far (all pages).
    public var values: JSONObject
    /// The native form definition's opaque `context`.
    public var context: JSONObject?
    /// Unverified client hint.
    public var userEmail: String?

    /// An options request.
    public init(
        deviceID: String, target: Target, fieldID: String, query: String = "", values: JSONObject = [:],
        context: JSONObject? = nil, userEmail: String? = nil
    ) {
        self.deviceID = deviceID
        self.target = target
        self.fieldID = fieldID
        self.query = query
        self.values = values
        self.context = context
        self.userEmail = userEmail
    }

    /// Decodes a snake_case request body. Both or neither of `widget_id` / `form_id` non-null
    /// is one issue at the body's root; an empty string counts as set.
    ///
    /// - Throws: ``ModelError`` listing every issue.
    public init(json: JSONValue) throws(ModelError) { self = try Self.decode(json) }

    /// The snake_case body; `query` and `values` are always written.
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("device_id", deviceID)
        // Both keys, the other one `nil`: a forwarded body keeps the `null` the app sent for it.
        var widgetID: String?
        var formID: String?
        switch target {
        case .widget(let id): widgetID = id
        case .form(let id): formID = id
        }
        writer.set("widget_id", widgetID)
        writer.set("form_id", formID)
        writer.set("field_id", fieldID)
        writer.set("query", query)
        writer.set("values", values)
        writer.set("context", context)
        writer.set("user_email", userEmail)
        return writer.value
    }
}

extension WidgetOptionsRequest: ObjectDecodable {
    static var keyStyle: KeyStyle { .snakeCase }

    init?(_ reader: ObjectReader) {
        let deviceID = reader.required("device_id") { $0.string() }
        let widgetID = reader.optional("widget_id") { $0.string() }
        let formID = reader.optional("form_id") { $0.string() }
        let fieldID = reader.required("field_id") { $0.string() }
        let query = reader.nonNull("query") { $0.string() }
        let values = reader.nonNull("values") { $0.object() }
        let context = reader.optional("context") { $0.object() }
        let userEmail = reader.optional("user_email") { $0.string() }
        let target: Target?
        switch (widgetID, formID) {
        case (let widget?, nil): target = .widget(widget)
        case (nil, let form?): target = .form(form)
        default:
            target = nil
            // The reference's model validator, in its wording; it runs only on an otherwise valid body.
            if reader.isClean {
                reader.invalid(nil, "Exactly one of `widget_id` and `form_id` must be set.", input: .object(reader.object))
            }
        }
        guard reader.isClean, let deviceID, let target, let fieldID else { return nil }
        self.init(
            deviceID: deviceID, target: target, fieldID: fieldID, query: query ?? "", values: values ?? [:],
            context: context, userEmail: userEmail)
    }
}
