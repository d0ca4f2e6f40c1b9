public import AppNativeJSON

/// A model that writes itself as JSON.
public protocol ModelEncodable: Sendable {
    /// The model as JSON: camelCase for definitions and responses, snake_case for request bodies;
    /// `null` members left out (`contract/models.md` §0).
    func jsonValue(_ encoding: ModelEncoding) -> JSONValue
}
