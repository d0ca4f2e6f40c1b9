internal import AppNativeJSON

/// A model decoded from one JSON object.
protocol ObjectDecodable {
    static var keyStyle: KeyStyle { get }
    /// Decodes from `reader`, reporting every issue to its context; `nil` when any was reported.
    init?(_ reader: ObjectReader)
}

extension ObjectDecodable {
    static var keyStyle: KeyStyle { .camelCase }

    /// Decodes a whole value, throwing every issue found.
    static func decode(_ json: JSONValue) throws(ModelError) -> Self {
        let context = DecodingContext()
        guard case .object(let object) = json else {
            // The reference validates a whole body from Python objects, where a non-dict is
            // `model_attributes_type` (a nested model gets `dict_type`-like errors instead).
            context.report(
                [], "model_attributes_type", "Input should be a valid dictionary or object to extract fields from",
                input: json)
            throw ModelError(issues: context.issues)
        }
        let decoded = Self(ObjectReader(object: object, path: [], context: context, keyStyle: Self.keyStyle))
        guard let decoded, context.issues.isEmpty else { throw ModelError(issues: context.issues) }
        return decoded
    }
}

extension ObjectDecodable {
    /// A callback's result as a backend returned it: a JSON `null` is `fallback` (the default
    /// result), as the reference's callback returning `None` is; anything else is decoded.
    static func decodeResult(_ json: JSONValue, default fallback: @autoclosure () -> Self) throws(ModelError) -> Self {
        if json.isNull { return fallback() }
        return try decode(json)
    }
}
