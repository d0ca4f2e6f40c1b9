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
        let decoded = Cursor(value: json, path: [], context: context).model(Self.self)
        guard let decoded, context.issues.isEmpty else { throw ModelError(issues: context.issues) }
        return decoded
    }
}
