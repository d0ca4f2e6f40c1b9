public import AppNativeJSON

/// One block of native content, discriminated by `type` (`contract/models.md` §3.4).
public indirect enum ContentBlock: Sendable, Hashable, ModelEncodable {
    case heading(HeadingBlock)
    case text(TextBlock)
    case image(ImageBlock)
    /// At least one item.
    case facts([FactItem])
    /// At least one item.
    case list([ContentListItem])
    case table(TableBlock)
    case map(MapBlock)
    case file(FileBlock)
    case video(VideoBlock)
    case callout(CalloutBlock)
    /// At least one item.
    case badges([BadgeItem])
    /// 1…`MAX_BUTTONS_PER_BLOCK` actions.
    case buttons([NativeAction])
    case kpi(KPIData)
    case stats(StatsData)
    case chart(ChartData)
    case progress(ProgressData)
    /// Form fields inside content; at least one.
    case fields([ActionField])
    case card(CardBlock)
    /// 2 or 3 blocks side by side.
    case row([ContentBlock])
    case divider
    /// Height ≥ 0 when set.
    case spacer(height: JSONNumber?)

    /// The `type` discriminator; unknown values are validation errors.
    public enum Kind: String, Sendable, Hashable, CaseIterable, WireEnum {
        case heading, text, image, facts, list, table, map, file, video, callout, badges, buttons
        case kpi, stats, chart, progress, fields, card, row, divider, spacer
    }

    /// The block's `type`.
    public var kind: Kind {
        switch self {
        case .heading: .heading
        case .text: .text
        case .image: .image
        case .facts: .facts
        case .list: .list
        case .table: .table
        case .map: .map
        case .file: .file
        case .video: .video
        case .callout: .callout
        case .badges: .badges
        case .buttons: .buttons
        case .kpi: .kpi
        case .stats: .stats
        case .chart: .chart
        case .progress: .progress
        case .fields: .fields
        case .card: .card
        case .row: .row
        case .divider: .divider
        case .spacer: .spacer
        }
    }

    /// `{"type": kind, …members}`.
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("type", kind)
        switch self {
        case .heading(let block): writer.merge(block)
        case .text(let block): writer.merge(block)
        case .image(let block): writer.merge(block)
        case .facts(let items): writer.set("items", items)
        case .list(let items): writer.set("items", items)
        case .table(let block): writer.merge(block)
        case .map(let block): writer.merge(block)
        case .file(let block): writer.merge(block)
        case .video(let block): writer.merge(block)
        case .callout(let block): writer.merge(block)
        case .badges(let items): writer.set("items", items)
        case .buttons(let items): writer.set("items", items)
        case .kpi(let data): writer.set("data", data)
        case .stats(let data): writer.set("data", data)
        case .chart(let data): writer.set("data", data)
        case .progress(let data): writer.set("data", data)
        case .fields(let fields): writer.set("fields", fields)
        case .card(let block): writer.merge(block)
        case .row(let blocks): writer.set("blocks", blocks)
        case .divider: break
        case .spacer(let height): writer.set("height", height)
        }
        return writer.value
    }

    /// Actions whose `then` steps chain further surfaces: `buttons` items and list-row actions,
    /// at any depth.
    var chainingActions: [NativeAction] {
        switch self {
        case .buttons(let actions): actions
        case .list(let items): items.compactMap(\.action)
        case .card(let card): card.blocks.flatMap(\.chainingActions)
        case .row(let blocks): blocks.flatMap(\.chainingActions)
        default: []
        }
    }
}

extension ObjectWriter {
    /// Appends the members of a model's object.
    mutating func merge(_ model: some ModelEncodable) {
        if case .object(let object) = model.jsonValue(encoding) {
            for (key, value) in object { set(key, value) }
        }
    }
}

extension Cursor {
    /// One content block; tracks nesting (`MAX_BLOCK_NESTING`) in the context.
    func contentBlock() -> ContentBlock? {
        guard let reader = reader(.camelCase) else { return nil }
        let kind = reader.required("type") { $0.enumeration(ContentBlock.Kind.self) }
        context.blockDepth += 1
        defer { context.blockDepth -= 1 }
        if context.blockDepth == ModelLimits.maxBlockNesting + 1 {
            context.tooLarge(path, "blocks nest deeper than \(ModelLimits.maxBlockNesting) levels")
        }
        guard let kind else { return nil }
        let block: ContentBlock?
        switch kind {
        case .heading: block = model(HeadingBlock.self).map(ContentBlock.heading)
        case .text: block = model(TextBlock.self).map(ContentBlock.text)
        case .image: block = model(ImageBlock.self).map(ContentBlock.image)
        case .facts: block = reader.required("items") { $0.array(min: 1) { $0.model(FactItem.self) } }.map(ContentBlock.facts)
        case .list:
            block = reader.required("items") { $0.array(min: 1) { $0.model(ContentListItem.self) } }.map(ContentBlock.list)
        case .table: block = model(TableBlock.self).map(ContentBlock.table)
        case .map: block = model(MapBlock.self).map(ContentBlock.map)
        case .file: block = model(FileBlock.self).map(ContentBlock.file)
        case .video: block = model(VideoBlock.self).map(ContentBlock.video)
        case .callout: block = model(CalloutBlock.self).map(ContentBlock.callout)
        case .badges: block = reader.required("items") { $0.array(min: 1) { $0.model(BadgeItem.self) } }.map(ContentBlock.badges)
        case .buttons:
            block = reader.required("items") {
                $0.array(min: 1, max: ModelLimits.maxButtonsPerBlock, maxIsLimit: true) { $0.model(NativeAction.self) }
            }.map(ContentBlock.buttons)
        case .kpi: block = reader.required("data") { $0.model(KPIData.self) }.map(ContentBlock.kpi)
        case .stats: block = reader.required("data") { $0.model(StatsData.self) }.map(ContentBlock.stats)
        case .chart: block = reader.required("data") { $0.model(ChartData.self) }.map(ContentBlock.chart)
        case .progress: block = reader.required("data") { $0.model(ProgressData.self) }.map(ContentBlock.progress)
        case .fields: block = reader.required("fields") { $0.array(min: 1) { $0.model(ActionField.self) } }.map(ContentBlock.fields)
        case .card: block = model(CardBlock.self).map(ContentBlock.card)
        case .row: block = reader.required("blocks") { $0.nestedBlocks(min: 2, max: 3) }.map(ContentBlock.row)
        case .divider: block = .divider
        case .spacer: block = ContentBlock.spacer(height: reader.optional("height") { $0.number(atLeast: 0) })
        }
        return reader.isClean ? block : nil
    }

    /// The blocks of a card or row, one level deeper.
    func nestedBlocks(min: Int, max: Int?) -> [ContentBlock]? {
        array(min: min, max: max) { $0.contentBlock() }
    }
}
