public import AppNativeJSON

/// A row of a content `list` block (`contract/models.md` §3.4).
public struct ContentListItem: Sendable, Hashable, ModelEncodable {
    public var title: String
    public var subtitle: String?
    public var trailing: ScalarValue?
    public var icon: String?
    /// `https://` only; data URIs are refused here.
    public var image: String?
    public var action: NativeAction?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(title: String, subtitle: String? = nil, trailing: ScalarValue? = nil, icon: String? = nil, image: String? = nil, action: NativeAction? = nil) {
        self.title = title
        self.subtitle = subtitle
        self.trailing = trailing
        self.icon = icon
        self.image = image
        self.action = action
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("title", title)
        writer.set("subtitle", subtitle)
        writer.set("trailing", trailing)
        writer.set("icon", icon)
        writer.set("image", image)
        writer.set("action", action)
        return writer.value
    }
}

extension ContentListItem: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let title = reader.required("title") { $0.string() }
        let subtitle = reader.optional("subtitle") { $0.string() }
        let trailing = reader.optional("trailing") { $0.scalar() }
        let icon = reader.optional("icon") { $0.string() }
        let image = reader.optional("image") { $0.httpsURL() }
        let action = reader.optional("action") { $0.model(NativeAction.self) }
        guard reader.isClean, let title else { return nil }
        self.init(title: title, subtitle: subtitle, trailing: trailing, icon: icon, image: image, action: action)
    }
}
