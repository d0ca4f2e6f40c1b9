public import AppNativeJSON

/// A model that decodes and validates itself from untrusted JSON.
public protocol ModelDecodable: Sendable {
    /// Decodes `json`, checking every rule of the contract.
    ///
    /// - Throws: ``ModelError`` with code `.invalid` listing every issue with its path.
    init(json: JSONValue) throws(ModelError)
}
