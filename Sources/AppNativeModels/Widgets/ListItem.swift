public import AppNativeJSON

/// A row of a `list` widget (`contract/models.md` §1.2). The app shows at most two `actions`; the row
/// `id` comes back as `item_id`.
public struct ListItem: Sendable, Hashable, ModelEncodable {
    public var id: String
    /// Required, may be empty.
    public var title: String
    public var subtitle: String?
    public var trailing: ScalarValue?
    public var icon: String?
    public var tint: String?
    public var path: String?
    public var actions: [ActionButton]?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(
        id: String, title: String, subtitle: String? = nil, trailing: ScalarValue? = nil, icon: String? = nil,
        tint: String? = nil, path: String? = nil, actions: [ActionButton]? = nil
    ) {
        self.id = id
        self.title = title
        self.subtitle = subtitle
        self.trailing = trailing
        self.icon = icon
        self.tint = tint
        self.path = path
        self.actions = actions
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("id", id)
        writer.set("title", title)
        writer.set("subtitle", subtitle)
        writer.set("trailing", trailing)
        writer.set("icon", icon)
        writer.set("tint", tint)
        writer.set("path", path)
        writer.set("actions", actions)
        return writer.value
    }
}

extension ListItem: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let id = reader.required("id") { $0.nonEmptyString() }
        let title = reader.required("title") { $0.string() }
        let subtitle = reader.optional("subtitle") { $0.string() }
        let trailing = reader.optional("trailing") { $0.scalar() }
        let icon = reader.optional("icon") { $0.string() }
        let tint = reader.optional("tint") { $0.string() }
        let path = reader.optional("path") { $0.string() }
        let actions = reader.optional("actions") { $0.array { $0.model(ActionButton.self) } }
        guard reader.isClean, let id, let title else { return nil }
        self.init(
            id: id, title: title, subtitle: subtitle, trailing: trailing, icon: icon, tint: tint, path: path,
            actions: actions)
    }
}
