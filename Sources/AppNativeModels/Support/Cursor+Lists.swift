internal import AppNativeJSON

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
