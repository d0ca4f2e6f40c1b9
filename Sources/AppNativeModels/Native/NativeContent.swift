public import AppNativeJSON

/// A read-only native screen the page opens with `showContent` (`contract/models.md` §3.2).
public struct NativeContent: Sendable, Hashable, ModelDecodable, ModelEncodable {
    public var common: SurfaceCommon
    public var subtitle: String?
    /// At least one.
    public var blocks: [ContentBlock]
    /// Footer actions; at most `MAX_FOOTER_ACTIONS`.
    public var actions: [NativeAction]?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(common: SurfaceCommon = SurfaceCommon(), subtitle: String? = nil, blocks: [ContentBlock], actions: [NativeAction]? = nil) {
        self.common = common
        self.subtitle = subtitle
        self.blocks = blocks
        self.actions = actions
    }

    /// Decodes and validates a content definition with every rule and limit of §3.2–§3.4,
    /// chained surfaces included.
    ///
    /// - Throws: ``ModelError`` listing every issue; ``ModelError/isTooLarge`` tells a broken
    ///   limit (the app's "tooLarge") from an invalid definition.
    public init(json: JSONValue) throws(ModelError) { self = try Self.decode(json) }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        common.write(to: &writer)
        writer.set("subtitle", subtitle)
        writer.set("blocks", blocks)
        writer.set("actions", actions)
        return writer.value
    }

    /// Chained surfaces after this one, at most (`contract/models.md` §3.2).
    var chainDepth: Int {
        ((actions ?? []) + blocks.flatMap(\.chainingActions)).reduce(0) { Swift.max($0, $1.chainDepth) }
    }
}

extension NativeContent: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let decoded: NativeContent? = reader.context.decodingSurface { isRoot in
            let common = SurfaceCommon(reader)
            let subtitle = reader.optional("subtitle") { $0.string() }
            let blocks = reader.required("blocks") { $0.array(min: 1) { $0.contentBlock() } }
            let actions = reader.optional("actions") {
                $0.array(max: ModelLimits.maxFooterActions, maxIsLimit: true) { $0.model(NativeAction.self) }
            }
            if let raw = reader.lookup("blocks")?.value.arrayValue {
                let totals = SurfaceMeasure.content(blocks: raw)
                if totals.blocks > ModelLimits.maxContentBlocks {
                    reader.tooLarge("blocks", "\(totals.blocks) blocks; at most \(ModelLimits.maxContentBlocks) allowed")
                }
                if totals.fields > ModelLimits.maxContentFields {
                    reader.tooLarge("blocks", "\(totals.fields) fields; at most \(ModelLimits.maxContentFields) allowed")
                }
                if totals.imageBytes > ModelLimits.maxInlineImagesBytes {
                    reader.tooLarge(
                        "blocks", "\(totals.imageBytes) inline image bytes; at most \(ModelLimits.maxInlineImagesBytes) allowed")
                }
            }
            guard reader.isClean, let blocks else { return nil }
            let content = NativeContent(common: common, subtitle: subtitle, blocks: blocks, actions: actions)
            if isRoot { reader.checkDefinition(content, chainDepth: content.chainDepth) }
            return reader.isClean ? content : nil
        }
        guard let decoded else { return nil }
        self = decoded
    }
}
