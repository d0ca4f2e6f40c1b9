public import AppNativeJSON

/// `visibleIf`: show a field only when another field of the same form has a value
/// (`contract/models.md` §2.1). Without `equals` the field shows when the other one is filled or on.
public struct ActionCondition: Sendable, Hashable, ModelEncodable {
    /// The other field's `id`; must name a different field of the same form.
    public var field: String
    public var equals: ConditionValue?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(field: String, equals: ConditionValue? = nil) {
        self.field = field
        self.equals = equals
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("field", field)
        writer.set("equals", equals)
        return writer.value
    }
}

extension ActionCondition: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let field = reader.required("field") { $0.nonEmptyString() }
        let equals = reader.optional("equals") { $0.conditionValue() }
        guard reader.isClean, let field else { return nil }
        self.init(field: field, equals: equals)
    }
}
