public import AppNativeJSON

// The results an upstream answers to the app's POSTs, decoded so a gateway can validate them
// before they reach the app (routes.md §3.2, §3.3, §3.5). Input is read camelCase (snake_case
// accepted, as the Python models do); the widgets and approvals inside are held to every rule, so
// one invalid widget makes the whole result invalid (a result is not a feed: nothing is dropped).

extension WidgetActionResult: ModelDecodable, ObjectDecodable {
    /// - Throws: ``ModelError`` listing every issue.
    public init(json: JSONValue) throws(ModelError) { self = try Self.decode(json) }

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

extension WidgetOptionsResult: ModelDecodable, ObjectDecodable {
    /// Accepts the result object or a bare list of options (routes.md §3.3: a callback may return
    /// just the list, which is wrapped).
    ///
    /// - Throws: ``ModelError`` listing every issue.
    public init(json: JSONValue) throws(ModelError) {
        if case .array = json {
            let context = DecodingContext()
            let options = Cursor(value: json, path: [], context: context).array { $0.model(ActionOption.self) }
            guard let options, context.issues.isEmpty else { throw ModelError(issues: context.issues) }
            self.init(options: options)
            return
        }
        self = try Self.decode(json)
    }

    init?(_ reader: ObjectReader) {
        let options = reader.nonNull("options") { $0.array { $0.model(ActionOption.self) } }
        let emptyText = reader.optional("emptyText") { $0.string() }
        guard reader.isClean else { return nil }
        self.init(options: options, emptyText: emptyText)
    }
}

extension ApprovalDecisionResult: ModelDecodable, ObjectDecodable {
    /// - Throws: ``ModelError`` listing every issue.
    public init(json: JSONValue) throws(ModelError) { self = try Self.decode(json) }

    init?(_ reader: ObjectReader) {
        let ok = reader.nonNull("ok") { $0.bool() }
        let message = reader.optional("message") { $0.string() }
        let style = reader.optional("style") { $0.enumeration(ResultStyle.self) }
        let approvals = reader.optional("approvals") { $0.array { $0.model(Approval.self) } }
        guard reader.isClean else { return nil }
        self.init(ok: ok, message: message, style: style, approvals: approvals)
    }
}
