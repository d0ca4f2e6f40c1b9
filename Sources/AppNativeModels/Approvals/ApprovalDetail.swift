public import AppNativeJSON

/// One label/value line of an approval; the app shows at most 12 (`contract/models.md` §4).
public struct ApprovalDetail: Sendable, Hashable, ModelEncodable {
    public var label: String
    public var value: String

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(label: String, value: String) {
        self.label = label
        self.value = value
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("label", label)
        writer.set("value", value)
        return writer.value
    }
}

extension ApprovalDetail: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let label = reader.required("label") { $0.string() }
        let value = reader.required("value") { $0.string() }
        guard reader.isClean, let label, let value else { return nil }
        self.init(label: label, value: value)
    }
}
