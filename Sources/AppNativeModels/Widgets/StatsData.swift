public import AppNativeJSON

/// Data of a `stats` widget: 1…4 items (`models.md` §1.2); 0 or 5 items is invalid.
public struct StatsData: Sendable, Hashable, ModelEncodable {
    public var items: [StatItem]

    public init(items: [StatItem]) { self.items = items }

    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("items", items)
        return writer.value
    }
}

extension StatsData: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let items = reader.required("items") { $0.array(min: 1, max: ModelLimits.maxStatItems) { $0.model(StatItem.self) } }
        guard reader.isClean, let items else { return nil }
        self.init(items: items)
    }
}

extension Cursor {
    /// A list whose length is checked before its elements are decoded, so a too-long list with
    /// broken elements reports both.
    func array<T>(min: Int = 0, max: Int? = nil, maxIsLimit: Bool = false, _ element: (Cursor) -> T?) -> [T]? {
        guard let values = value.arrayValue else { return array(element) }
        let isCountValid = count(values, min: min, max: max, maxIsLimit: maxIsLimit)
        let decoded = array(element)
        return isCountValid ? decoded : nil
    }

    /// Checks a list length against `min…max`, reporting pydantic's `too_short` / `too_long`.
    /// `tooLarge` marks the upper bound as a size limit (an `L` row) rather than a shape rule.
    func count<T>(_ items: [T], min: Int = 0, max: Int? = nil, maxIsLimit: Bool = false) -> Bool {
        if items.count < min {
            context.report(path, "too_short",
                "List should have at least \(min) item\(min == 1 ? "" : "s") after validation, not \(items.count)",
                input: value)
            return false
        }
        if let max, items.count > max {
            context.report(path, maxIsLimit ? "too_large" : "too_long",
                "List should have at most \(max) item\(max == 1 ? "" : "s") after validation, not \(items.count)",
                kind: maxIsLimit ? .tooLarge : .invalid, input: value)
            return false
        }
        return true
    }
}
