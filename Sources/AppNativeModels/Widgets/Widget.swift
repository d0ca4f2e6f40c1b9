public import AppNativeJSON

/// One widget of a feed (schema v1, `contract/models.md` §1.1).
public struct Widget: Sendable, Hashable, ModelDecodable, ModelEncodable {
    /// Non-empty, without `/` (the app namespaces ids as `<webappId>/<id>`).
    public var id: String
    /// `nil` = unset: the app picks ``WidgetData/Kind/defaultSize``.
    public var size: WidgetSize?
    /// `nil` = unset, written as `""` in response encoding.
    public var title: String?
    /// SF Symbol name.
    public var icon: String?
    /// Free string, not validated.
    public var tint: String?
    /// The user cannot hide it. `nil` = unset, written as `false`.
    public var required: Bool?
    /// `nil` = unset, written as `true`.
    public var defaultEnabled: Bool?
    /// Tapping opens the web app here.
    public var path: String?
    public var updatedAt: Timestamp?
    /// Shown as stale afterwards.
    public var expiresAt: Timestamp?
    /// The data; its case is the widget's `kind`.
    public var data: WidgetData

    /// The widget's `kind`, from its data.
    public var kind: WidgetData.Kind { data.kind }

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(
        id: String, size: WidgetSize? = nil, title: String? = nil, icon: String? = nil, tint: String? = nil,
        required: Bool? = nil, defaultEnabled: Bool? = nil, path: String? = nil, updatedAt: Timestamp? = nil,
        expiresAt: Timestamp? = nil, data: WidgetData
    ) {
        self.id = id
        self.size = size
        self.title = title
        self.icon = icon
        self.tint = tint
        self.required = required
        self.defaultEnabled = defaultEnabled
        self.path = path
        self.updatedAt = updatedAt
        self.expiresAt = expiresAt
        self.data = data
    }

    /// Decodes one widget (camelCase, snake_case accepted).
    ///
    /// - Throws: ``ModelError`` listing every issue.
    public init(json: JSONValue) throws(ModelError) { self = try Self.decode(json) }

    /// The widget; `kind` is always written.
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("id", id)
        writer.set("kind", kind)
        writer.set("size", size)
        writer.set("title", title, default: "")
        writer.set("icon", icon)
        writer.set("tint", tint)
        writer.set("required", required, default: false)
        writer.set("defaultEnabled", defaultEnabled, default: true)
        writer.set("path", path)
        writer.set("updatedAt", updatedAt?.iso8601)
        writer.set("expiresAt", expiresAt?.iso8601)
        writer.set("data", data)
        return writer.value
    }
}

extension Widget: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let id = reader.required("id") { cursor -> String? in
            guard let id = cursor.nonEmptyString() else { return nil }
            if id.contains("/") {
                cursor.context.invalid(cursor.path, "id must not contain '/'", input: cursor.value)
                return nil
            }
            return id
        }
        let kind = reader.required("kind") { $0.enumeration(WidgetData.Kind.self) }
        let size = reader.optional("size") { $0.enumeration(WidgetSize.self) }
        let title = reader.nonNull("title") { $0.string() }
        let icon = reader.optional("icon") { $0.string() }
        let tint = reader.optional("tint") { $0.string() }
        let required = reader.nonNull("required") { $0.bool() }
        let defaultEnabled = reader.nonNull("defaultEnabled") { $0.bool() }
        let path = reader.optional("path") { $0.string() }
        let updatedAt = reader.optional("updatedAt") { $0.timestamp() }
        let expiresAt = reader.optional("expiresAt") { $0.timestamp() }
        // Without a known kind the data cannot be checked; only its presence is.
        let data: WidgetData? =
            if let kind {
                reader.required("data") { $0.widgetData(kind) }
            } else {
                reader.required("data") { _ in nil }
            }
        guard reader.isClean, let id, let data else { return nil }
        self.init(
            id: id, size: size, title: title, icon: icon, tint: tint, required: required,
            defaultEnabled: defaultEnabled, path: path, updatedAt: updatedAt, expiresAt: expiresAt, data: data)
    }
}
