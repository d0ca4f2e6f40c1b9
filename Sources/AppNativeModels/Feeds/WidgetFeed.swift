public import AppNativeJSON

/// `GET {p}/widgets` response: `{"schema":1,"widgets":[…]}` (`contract/routes.md` §3.1, `contract/models.md` §1.1).
public struct WidgetFeed: Sendable, Hashable, ModelDecodable, ModelEncodable {
    /// `nil` = unset, written as ``ModelLimits/widgetSchemaVersion`` in response encoding.
    public var schema: Int?
    /// `nil` = unset, written as `[]` in response encoding.
    public var widgets: [Widget]?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(schema: Int? = nil, widgets: [Widget]? = nil) {
        self.schema = schema
        self.widgets = widgets
    }

    /// Decodes a feed strictly: any invalid widget fails the whole feed. A bare array (which
    /// the app also accepts) reads as the `widgets` list.
    ///
    /// - Throws: ``ModelError`` listing every issue.
    public init(json: JSONValue) throws(ModelError) {
        if case .array = json {
            self = try Self.decode(["widgets": json])
        } else {
            self = try Self.decode(json)
        }
    }

    /// The feed as sent to the app: `schema` and `widgets` always written in response encoding.
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("schema", schema, default: ModelLimits.widgetSchemaVersion)
        writer.set("widgets", widgets, defaultEmpty: ())
        return writer.value
    }

    /// Reads a feed as the app does: invalid widgets are dropped one by one and reported.
    ///
    /// Besides invalid widgets, `web` widgets are dropped unless `allowsWebWidgets` (the app
    /// accepts them only from one privileged feed), and valid widgets past the 20th
    /// (``ModelLimits/maxWidgetsPerWebApp``) are dropped as `too_large`.
    ///
    /// - Parameters:
    ///   - json: the feed object, or a bare array of widgets.
    ///   - allowsWebWidgets: whether this is the privileged feed.
    /// - Throws: ``ModelError`` only when the envelope itself is broken (not an object or array,
    ///   `widgets` not a list).
    public static func decodeDroppingInvalid(_ json: JSONValue, allowsWebWidgets: Bool = false) throws(ModelError)
        -> FeedDecoding<Widget>
    {
        let context = DecodingContext()
        var elements: [JSONValue] = []
        var path: [PathComponent] = []
        switch json {
        case .array(let values):
            elements = values
        default:
            let root = Cursor(value: json, path: [], context: context)
            if let reader = root.reader(.camelCase) {
                // `schema` is not read: the reference answers its own version whatever the
                // backend wrote there.
                if let cursor = reader.cursor("widgets"), !cursor.value.isNull {
                    if let values = cursor.value.arrayValue {
                        elements = values
                        path = cursor.path
                    } else {
                        context.report(cursor.path, "list_type", "Input should be a valid list", input: cursor.value)
                    }
                } else if reader.contains("widgets") {
                    context.report(["widgets"], "list_type", "Input should be a valid list", input: .null)
                }
            }
        }
        guard context.issues.isEmpty else { throw ModelError(issues: context.issues) }
        return FeedReader.decode(elements, path: path, limit: ModelLimits.maxWidgetsPerWebApp, limitName: "widgets") {
            widget, widgetPath in
            guard widget.kind == .web, !allowsWebWidgets else { return [] }
            return [
                ValidationIssue(
                    path: widgetPath + ["kind"], message: "web widgets are accepted only from the privileged feed",
                    type: "web_widget_not_allowed", input: .string("web"))
            ]
        }
    }
}

extension WidgetFeed: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let schema = reader.nonNull("schema") { $0.int() }
        let widgets = reader.nonNull("widgets") { $0.array { $0.model(Widget.self) } }
        guard reader.isClean else { return nil }
        self.init(schema: schema, widgets: widgets)
    }
}
