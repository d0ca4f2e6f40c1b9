public import AppNativeJSON

/// A column of a `table` block (`contract/models.md` §3.4).
public struct TableColumn: Sendable, Hashable, ModelEncodable {
    /// Row member shown in this column; unique in the table.
    public var key: String
    public var label: String
    public var align: TextAlignment?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(key: String, label: String, align: TextAlignment? = nil) {
        self.key = key
        self.label = label
        self.align = align
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("key", key)
        writer.set("label", label)
        writer.set("align", align)
        return writer.value
    }
}

extension TableColumn: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let key = reader.required("key") { $0.nonEmptyString() }
        let label = reader.required("label") { $0.string() }
        let align = reader.optional("align") { $0.enumeration(TextAlignment.self) }
        guard reader.isClean, let key, let label else { return nil }
        self.init(key: key, label: label, align: align)
    }
}
