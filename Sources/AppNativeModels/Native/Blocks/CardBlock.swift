public import AppNativeJSON

/// A `card` content block: a titled group of at least one block (`contract/models.md` §3.4).
public struct CardBlock: Sendable, Hashable, ModelEncodable {
    public var title: String?
    public var blocks: [ContentBlock]

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(title: String? = nil, blocks: [ContentBlock]) {
        self.title = title
        self.blocks = blocks
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("title", title)
        writer.set("blocks", blocks)
        return writer.value
    }
}

extension CardBlock: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let title = reader.optional("title") { $0.string() }
        let blocks = reader.required("blocks") { cursor in cursor.nestedBlocks(min: 1, max: nil) }
        guard reader.isClean, let blocks else { return nil }
        self.init(title: title, blocks: blocks)
    }
}
