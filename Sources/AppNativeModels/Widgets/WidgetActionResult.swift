public import AppNativeJSON

/// `POST {p}/widget-actions` response (`contract/routes.md` §3.2). Widgets inside are written with
/// their defaults in response encoding.
public struct WidgetActionResult: Sendable, Hashable, ModelDecodable, ModelEncodable {
    /// `nil` = unset, written as `true`.
    public var ok: Bool?
    public var message: String?
    public var style: ResultStyle?
    /// Replaces all widgets of the web app.
    public var widgets: [Widget]?
    /// Replaces the one widget with the same `id`.
    public var widget: Widget?
    /// Ignored by Home Screen widget taps.
    public var openPath: String?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(
        ok: Bool? = nil, message: String? = nil, style: ResultStyle? = nil, widgets: [Widget]? = nil,
        widget: Widget? = nil, openPath: String? = nil
    ) {
        self.ok = ok
        self.message = message
        self.style = style
        self.widgets = widgets
        self.widget = widget
        self.openPath = openPath
    }

    /// Decodes a result a backend returned, so the gateway relays only what the app can read.
    ///
    /// A JSON `null` is the default result, as the reference's callback returning `None` is.
    ///
    /// - Throws: ``ModelError`` listing every issue.
    public init(json: JSONValue) throws(ModelError) {
        self = try Self.decodeResult(json, default: Self())
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.setResult(ok: ok, message: message, style: style)
        writer.set("widgets", widgets)
        writer.set("widget", widget)
        writer.set("openPath", openPath)
        return writer.value
    }
}

extension WidgetActionResult: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let ok = reader.nonNull("ok") { $0.bool() }
        let message = reader.optional("message") { $0.string() }
        let style = reader.optional("style") { $0.enumeration(ResultStyle.self) }
        let widgets = reader.optional("widgets") { $0.array { $0.model(Widget.self) } }
        let widget = reader.optional("widget") { $0.model(Widget.self) }
        let openPath = reader.optional("openPath") { $0.string() }
        guard reader.isClean else { return nil }
        self.init(ok: ok, message: message, style: style, widgets: widgets, widget: widget, openPath: openPath)
    }
}
