public import AppNativeJSON

/// Data of an `action` widget: an optional form and at least one button (`contract/models.md` §2.1).
///
/// Neither `fields` nor `pages` makes a button-only action.
public struct ActionData: Sendable, Hashable, ModelDecodable, ModelEncodable {
    public var text: String?
    /// Single-page form.
    public var fields: [ActionField]?
    /// Multi-page form; at least one page when present.
    public var pages: [ActionPage]?
    /// At least one.
    public var buttons: [ActionButton]

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(text: String? = nil, fields: [ActionField]? = nil, pages: [ActionPage]? = nil, buttons: [ActionButton]) {
        self.text = text
        self.fields = fields
        self.pages = pages
        self.buttons = buttons
    }

    /// Decodes one ActionData with the widget rules (native-form rules apply inside ``NativeForm``).
    ///
    /// - Throws: ``ModelError`` listing every issue.
    public init(json: JSONValue) throws(ModelError) { self = try Self.decode(json) }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("text", text)
        writer.set("fields", fields)
        writer.set("pages", pages)
        writer.set("buttons", buttons)
        return writer.value
    }
}

extension ActionData: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let text = reader.optional("text") { $0.string() }
        let fields = reader.optional("fields") { $0.array { $0.model(ActionField.self) } }
        let pages = reader.optional("pages") { $0.array(min: 1) { $0.model(ActionPage.self) }
        }
        let buttons = reader.required("buttons") { $0.array(min: 1) { $0.model(ActionButton.self) }
        }
        FormRules.check(reader, fields: fields, pages: pages)
        guard reader.isClean, let buttons else { return nil }
        self.init(text: text, fields: fields, pages: pages, buttons: buttons)
    }
}
