internal import AppNativeJSON

/// Size of inline `data:` images as the contract measures it (`contract/models.md` §3.4).
public enum DataURI: Sendable {
    /// The decoded size of a data URI: split at the first comma; when the header ends with
    /// `;base64` (any case) it is `floor(len(payload) · 3 / 4)` minus the trailing `=` count
    /// (at least 0), otherwise the payload's UTF-8 length. Without a comma the payload is empty.
    ///
    /// Lengths count Unicode scalars, as Python's `len` does on the reference side.
    public static func decodedByteCount(_ uri: String) -> Int {
        guard let comma = uri.firstIndex(of: ",") else { return 0 }
        let header = uri[..<comma]
        let payload = uri[uri.index(after: comma)...]
        if header.lowercased().hasSuffix(";base64") {
            let length = payload.unicodeScalars.count
            let padding = payload.unicodeScalars.reversed().prefix { $0 == "=" }.count
            return Swift.max(0, length * 3 / 4 - padding)
        }
        return payload.utf8.count
    }
}

extension Cursor {
    /// A URL that begins with the lower-case `https://` (the content blocks' prefix test: no
    /// host check, and the scheme compared as written).
    func httpsURL() -> String? {
        guard let url = string() else { return nil }
        guard url.hasPrefix("https://") else {
            context.invalid(path, "url must start with https://", input: value)
            return nil
        }
        return url
    }

    /// An inline image: `data:image/…`, at most `MAX_INLINE_IMAGE_BYTES` decoded.
    func imageDataURI() -> String? {
        guard let uri = string() else { return nil }
        guard uri.hasPrefix("data:image/") else {
            context.invalid(path, "data must start with data:image/", input: value)
            return nil
        }
        let size = DataURI.decodedByteCount(uri)
        guard size <= ModelLimits.maxInlineImageBytes else {
            context.tooLarge(path, "inline image of \(size) bytes exceeds \(ModelLimits.maxInlineImageBytes)")
            return nil
        }
        return uri
    }

    /// A surface colour: exactly `#` and six hex digits (`Tint` in `contract/models.md` §0).
    func tint() -> String? {
        guard let tint = string() else { return nil }
        let bytes = Array(tint.utf8)
        let isTint =
            bytes.count == 7 && bytes[0] == UInt8(ascii: "#")
            && bytes.dropFirst().allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 102) }
        guard isTint else {
            context.report(path, "string_pattern_mismatch", "String should match pattern '^#[0-9a-fA-F]{6}$'", input: value)
            return nil
        }
        return tint
    }

    /// A heading level: 1, 2 or 3.
    func headingLevel() -> Int? {
        guard let level = int() else { return nil }
        guard (1...3).contains(level) else {
            context.report(path, "literal_error", "Input should be 1, 2 or 3", input: value)
            return nil
        }
        return level
    }

    /// Table rows: objects whose values are strings or numbers; more than `MAX_TABLE_ROWS` is a limit.
    func tableRows() -> [JSONObject]? {
        guard
            let rows = array({ row -> JSONObject? in
                guard let object = row.object() else { return nil }
                var isValid = true
                for (key, member) in object {
                    let cell = Cursor(value: member, path: row.path + [.key(key)], context: context)
                    if cell.scalar() == nil { isValid = false }
                }
                return isValid ? object : nil
            })
        else { return nil }
        return count(rows, max: ModelLimits.maxTableRows, maxIsLimit: true) ? rows : nil
    }
}
