public import AppNativeJSON

/// `POST {p}/widget-options` response: `options` always written (`contract/routes.md` §3.3). The app
/// shows at most 50.
public struct WidgetOptionsResult: Sendable, Hashable, ModelDecodable, ModelEncodable {
    /// `nil` = unset, written as `[]`.
    public var options: [ActionOption]?
    public var emptyText: String?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(options: [ActionOption]? = nil, emptyText: String? = nil) {
        self.options = options
        self.emptyText = emptyText
    }

    /// Decodes a result a backend returned; a bare list of options is wrapped, as `contract/routes.md` §3.3 allows.
    ///
    /// - Throws: ``ModelError`` listing every issue.
    public init(json: JSONValue) throws(ModelError) {
        if case .array = json {
            self = try Self.decode(["options": json])
        } else if json.isNull {
            // The reference's callback returning `None`: no options.
            self.init()
        } else {
            self = try Self.decode(json)
        }
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("options", options, defaultEmpty: ())
        writer.set("emptyText", emptyText)
        return writer.value
    }
}

extension WidgetOptionsResult: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let options = reader.nonNull("options") { $0.array { $0.model(ActionOption.self) } }
        let emptyText = reader.optional("emptyText") { $0.string() }
        guard reader.isClean else { return nil }
        self.init(options: options, emptyText: emptyText)
    }
}
