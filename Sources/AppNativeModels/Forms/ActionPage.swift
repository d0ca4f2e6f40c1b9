public import AppNativeJSON

/// One page of a multi-page form: at least one field (`contract/models.md` §2.1).
public struct ActionPage: Sendable, Hashable, ModelEncodable {
    public var title: String?
    public var text: String?
    public var fields: [ActionField]

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(title: String? = nil, text: String? = nil, fields: [ActionField]) {
        self.title = title
        self.text = text
        self.fields = fields
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("title", title)
        writer.set("text", text)
        writer.set("fields", fields)
        return writer.value
    }
}

extension ActionPage: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let title = reader.optional("title") { $0.string() }
        let text = reader.optional("text") { $0.string() }
        let fields = reader.required("fields") { $0.array(min: 1) { $0.model(ActionField.self) }
        }
        guard reader.isClean, let fields else { return nil }
        self.init(title: title, text: text, fields: fields)
    }
}
