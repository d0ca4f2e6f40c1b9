public import AppNativeJSON

/// Turns raw request bytes into a validated model, with the 413/422 split of `contract/routes.md`.
public struct ModelDecoder: Sendable {
    /// The default cap for JSON request bodies: the largest native definition
    /// (`MAX_SURFACE_DEFINITION_BYTES`, 256 KiB) plus room for its envelope.
    public static let defaultMaxBodyBytes = 1 << 20

    /// The largest body accepted; longer bodies fail with `.bodyTooLarge` (413) unread.
    public let maxBodyBytes: Int
    /// Nesting allowed in the JSON text. A valid native definition can reach about 60 levels
    /// (five chained surfaces, each hop through nested cards and a list-row action, then fields),
    /// and the opaque `context` and `values` objects add their own, so the default is 128.
    public let maxDepth: Int

    /// Creates a decoder.
    ///
    /// - Parameters:
    ///   - maxBodyBytes: the route's byte cap (at least 0).
    ///   - maxDepth: JSON nesting bound, within `0...JSONParser.maxSupportedDepth`.
    public init(maxBodyBytes: Int = defaultMaxBodyBytes, maxDepth: Int = 128) {
        precondition(maxBodyBytes >= 0, "ModelDecoder: negative maxBodyBytes")
        self.maxBodyBytes = maxBodyBytes
        self.maxDepth = maxDepth
    }

    /// Parses and validates `bytes` as `Model`.
    ///
    /// - Throws: ``ModelError``: `.bodyTooLarge` (413) when `bytes` is longer than the cap
    ///   (exactly the cap is accepted); `.invalid` (422) when the bytes are not strict JSON
    ///   (one `json_invalid` issue at `loc ["body", <byte offset>]`, FastAPI's shape) or break
    ///   any model rule (every issue listed).
    public func decode<Model: ModelDecodable>(_ type: Model.Type, from bytes: [UInt8]) throws(ModelError) -> Model {
        try Model(json: parse(bytes))
    }

    /// Parses `bytes` as strict JSON under this decoder's limits.
    ///
    /// Read as the reference reads a body (FastAPI, then Python's `json.loads` on bytes): an empty
    /// body is a missing one; the text may be UTF-8 with or without a byte order mark, or UTF-16 or
    /// UTF-32, told apart by Python's `json.detect_encoding` rule.
    ///
    /// - Throws: ``ModelError`` as ``decode(_:from:)`` does for the size and syntax cases; an empty
    ///   body is one `missing` issue at `loc ["body"]`.
    public func parse(_ bytes: [UInt8]) throws(ModelError) -> JSONValue {
        guard bytes.count <= maxBodyBytes else {
            throw ModelError(.bodyTooLarge, reason: "body of \(bytes.count) bytes exceeds \(maxBodyBytes)")
        }
        guard !bytes.isEmpty else {
            let issue = ValidationIssue(path: [], message: "Field required", type: "missing", input: .null)
            throw ModelError(.invalid, issues: [issue], reason: "body is empty")
        }
        guard let utf8 = BodyEncoding.utf8(bytes) else {
            throw Self.syntaxError(offset: 0, reason: "the text is not valid in the encoding its first bytes name")
        }
        var options = JSONParser.Options()
        options.maxBytes = Swift.max(maxBodyBytes, utf8.count)
        options.maxDepth = maxDepth
        do {
            return try JSONParser(options: options).parse(utf8)
        } catch {
            // Python reports the position in characters of the decoded text, not in bytes.
            let characters = utf8.prefix(error.offset).reduce(0) { $1 & 0xC0 == 0x80 ? $0 : $0 + 1 }
            throw Self.syntaxError(offset: characters, reason: error.reason)
        }
    }

    /// FastAPI's `json_invalid` element: `input` is `{}`, the parser's reason goes in `ctx.error`.
    private static func syntaxError(offset: Int, reason: String) -> ModelError {
        let issue = ValidationIssue(
            path: [.index(offset)], message: "JSON decode error", type: "json_invalid", input: .object([:]),
            context: ["error": .string(reason)])
        return ModelError(.invalid, issues: [issue], reason: "body is not strict JSON: \(reason) at byte \(offset)")
    }
}
