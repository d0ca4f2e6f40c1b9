public import AppNativeJSON

/// A `table` content block (`contract/models.md` §3.4): at most 20 columns and 200 rows.
public struct TableBlock: Sendable, Hashable, ModelEncodable {
    public var columns: [TableColumn]
    /// Each row maps column keys to a string or number.
    public var rows: [JSONObject]
    public var caption: String?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(columns: [TableColumn], rows: [JSONObject], caption: String? = nil) {
        self.columns = columns
        self.rows = rows
        self.caption = caption
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("columns", columns)
        writer.set("rows", rows)
        writer.set("caption", caption)
        return writer.value
    }
}

extension TableBlock: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let columns = reader.required("columns") { $0.array(min: 1, max: ModelLimits.maxTableColumns, maxIsLimit: true) { $0.model(TableColumn.self) } }
        let rows = reader.required("rows") { $0.tableRows() }
        let caption = reader.optional("caption") { $0.string() }
        if let columns {
            var seen = Set<String>()
            for (index, column) in columns.enumerated() where !seen.insert(column.key).inserted {
                reader.context.invalid(
                    reader.path + [.key(reader.lookup("columns")?.key ?? "columns"), .index(index), "key"],
                    "duplicate column key", input: .string(column.key))
            }
        }
        guard reader.isClean, let columns, let rows else { return nil }
        self.init(columns: columns, rows: rows, caption: caption)
    }
}
