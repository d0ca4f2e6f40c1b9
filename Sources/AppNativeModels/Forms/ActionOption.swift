public import AppNativeJSON

/// One choice of a `select`, `multiselect` or `segmented` field, or a remote lookup result
/// (`contract/models.md` §2.1, `contract/routes.md` §3.3).
public struct ActionOption: Sendable, Hashable, ModelEncodable {
    /// What is submitted.
    public var value: String
    /// What is shown; the app falls back to `value`.
    public var label: String?
    public var subtitle: String?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(value: String, label: String? = nil, subtitle: String? = nil) {
        self.value = value
        self.label = label
        self.subtitle = subtitle
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("value", value)
        writer.set("label", label)
        writer.set("subtitle", subtitle)
        return writer.value
    }
}

extension ActionOption: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let value = reader.required("value") { $0.string() }
        let label = reader.optional("label") { $0.string() }
        let subtitle = reader.optional("subtitle") { $0.string() }
        guard reader.isClean, let value else { return nil }
        self.init(value: value, label: label, subtitle: subtitle)
    }
}
