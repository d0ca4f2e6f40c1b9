public import AppNativeJSON

/// `POST {p}/widget-options` response: `options` always written (`routes.md` §3.3). The app
/// shows at most 50.
public struct WidgetOptionsResult: Sendable, Hashable, ModelEncodable {
    /// `nil` = unset, written as `[]`.
    public var options: [ActionOption]?
    public var emptyText: String?

    public init(options: [ActionOption]? = nil, emptyText: String? = nil) {
        self.options = options
        self.emptyText = emptyText
    }

    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("options", options, defaultEmpty: ())
        writer.set("emptyText", emptyText)
        return writer.value
    }
}
