public import AppNativeJSON

/// The keys every native surface shares (`contract/models.md` §3).
public struct SurfaceCommon: Sendable, Hashable {
    /// Non-empty when present; the app generates one otherwise. Echoed as `form_id`.
    public var id: String?
    public var title: String?
    /// App default: forms `large`, content `medium`.
    public var size: SurfaceSize?
    /// `#rrggbb`.
    public var tint: String?
    /// Opaque, echoed back to the page and to option lookups and uploads.
    public var context: JSONObject?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(
        id: String? = nil, title: String? = nil, size: SurfaceSize? = nil, tint: String? = nil,
        context: JSONObject? = nil
    ) {
        self.id = id
        self.title = title
        self.size = size
        self.tint = tint
        self.context = context
    }

    init(_ reader: ObjectReader) {
        self.init(
            id: reader.optional("id") { $0.nonEmptyString() }, title: reader.optional("title") { $0.string() },
            size: reader.optional("size") { $0.enumeration(SurfaceSize.self) },
            tint: reader.optional("tint") { $0.tint() }, context: reader.optional("context") { $0.object() })
    }

    func write(to writer: inout ObjectWriter) {
        writer.set("id", id)
        writer.set("title", title)
        writer.set("size", size)
        writer.set("tint", tint)
        writer.set("context", context)
    }
}

extension DecodingContext {
    /// Runs `body` as the decoding of one native surface: surface-only field rules on, block
    /// nesting counted from this surface's top level. Returns whether this is the outermost one.
    func decodingSurface<T>(_ body: (_ isRoot: Bool) -> T) -> T {
        surfaceDepth += 1
        let savedBlockDepth = blockDepth
        blockDepth = 0
        defer {
            surfaceDepth -= 1
            blockDepth = savedBlockDepth
        }
        return body(surfaceDepth == 1)
    }
}

extension ObjectReader {
    /// The checks made once per definition, on the outermost surface: chain depth and the
    /// `MAX_SURFACE_DEFINITION_BYTES` size of the whole (nested surfaces included).
    func checkDefinition(_ surface: some ModelEncodable, chainDepth: Int) {
        if chainDepth > ModelLimits.maxChainDepth {
            tooLarge(nil, "surfaces chain \(chainDepth) deep; at most \(ModelLimits.maxChainDepth) allowed")
        }
        let size = SurfaceMeasure.pythonDumpsSize(surface.jsonValue(.response))
        if size > ModelLimits.maxSurfaceDefinitionBytes {
            tooLarge(nil, "definition of \(size) bytes exceeds \(ModelLimits.maxSurfaceDefinitionBytes)")
        }
    }
}
