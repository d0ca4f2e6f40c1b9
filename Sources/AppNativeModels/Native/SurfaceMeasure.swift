internal import AppNativeJSON

/// The whole-surface measurements behind the `MAX_*` limits of `contract/models.md` §3.
enum SurfaceMeasure {
    /// Blocks (nested included), fields in `fields` blocks, and decoded inline image bytes,
    /// counted on the raw JSON so the limits are reported even when some block is also invalid.
    static func content(blocks: [JSONValue]) -> (blocks: Int, fields: Int, imageBytes: Int) {
        var totals = (blocks: 0, fields: 0, imageBytes: 0)
        func walk(_ blocks: [JSONValue]) {
            for block in blocks {
                guard let object = block.objectValue else { continue }
                totals.blocks += 1
                switch object["type"]?.stringValue {
                case "card", "row":
                    if let nested = object["blocks"]?.arrayValue { walk(nested) }
                case "fields":
                    totals.fields += object["fields"]?.arrayValue?.count ?? 0
                case "image":
                    if let data = object["data"]?.stringValue, data.hasPrefix("data:image/") {
                        totals.imageBytes += DataURI.decodedByteCount(data)
                    }
                default:
                    break
                }
            }
        }
        walk(blocks)
        return totals
    }

    /// The UTF-8 length of `value` as Python's default `json.dumps(…, ensure_ascii=False)` writes
    /// it: compact JSON plus one space after every `,` and every `:`.
    static func pythonDumpsSize(_ value: JSONValue) -> Int {
        switch value {
        case .array(let elements):
            return 2 + elements.reduce(0) { $0 + pythonDumpsSize($1) } + Swift.max(0, elements.count - 1) * 2
        case .object(let object):
            var size = 2 + Swift.max(0, object.count - 1) * 2
            for (key, member) in object {
                size += JSONSerializer.serialize(.string(key)).count + 2 + pythonDumpsSize(member)
            }
            return size
        default:
            return JSONSerializer.serialize(value).count
        }
    }
}
