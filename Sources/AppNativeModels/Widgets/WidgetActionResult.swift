public import AppNativeJSON

/// `POST {p}/widget-actions` response (`routes.md` §3.2). Widgets inside are written with
/// their defaults in response encoding.
public struct WidgetActionResult: Sendable, Hashable, ModelEncodable {
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

    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("ok", ok, default: true)
        writer.set("message", message)
        writer.set("style", style)
        writer.set("widgets", widgets)
        writer.set("widget", widget)
        writer.set("openPath", openPath)
        return writer.value
    }
}
