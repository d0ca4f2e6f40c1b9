internal import AppNativeJSON

/// A value being decoded, where it sits, and the shared issue list.
///
/// Each reading either returns the decoded value or reports why not and returns `nil`;
/// nothing throws, so decoding continues past the first problem.
struct Cursor {
    let value: JSONValue
    let path: [PathComponent]
    let context: DecodingContext

    func string() -> String? {
        if case .string(let text) = value { return text }
        context.report(path, "string_type", "Input should be a valid string", input: value)
        return nil
    }

    /// A string with at least one character (`non-empty` in the contract).
    func nonEmptyString() -> String? {
        guard let text = string() else { return nil }
        if text.isEmpty {
            context.report(path, "string_too_short", "String should have at least 1 character", input: value)
            return nil
        }
        return text
    }

    func object() -> JSONObject? {
        if case .object(let object) = value { return object }
        context.report(path, "dict_type", "Input should be a valid dictionary", input: value)
        return nil
    }

    /// Each element decoded with `element`; `nil` when this is not an array or any element fails
    /// (all elements are still visited, so all their issues are reported).
    func array<T>(_ element: (Cursor) -> T?) -> [T]? {
        guard case .array(let values) = value else {
            context.report(path, "list_type", "Input should be a valid list", input: value)
            return nil
        }
        var result: [T] = []
        result.reserveCapacity(values.count)
        var isComplete = true
        for (index, item) in values.enumerated() {
            if let decoded = element(Cursor(value: item, path: path + [.index(index)], context: context)) {
                result.append(decoded)
            } else {
                isComplete = false
            }
        }
        return isComplete ? result : nil
    }

    func strings() -> [String]? { array { $0.string() } }

    /// One of the raw values of `T`.
    func enumeration<T: WireEnum>(_ type: T.Type) -> T? {
        if case .string(let text) = value, let known = T(rawValue: text) { return known }
        let expected = T.allCases.map { "'\($0.rawValue)'" }
        let list =
            expected.count <= 1
            ? expected.joined() : expected.dropLast().joined(separator: ", ") + " or " + expected.last!
        context.report(
            path, "literal_error", "Input should be \(list)", input: value, context: ["expected": .string(list)])
        return nil
    }

    /// A model decoded from an object.
    func model<T: ObjectDecodable>(_ type: T.Type) -> T? {
        guard let object = object() else { return nil }
        return T(ObjectReader(object: object, path: path, context: context, keyStyle: T.keyStyle))
    }

    func reader(_ keyStyle: KeyStyle) -> ObjectReader? {
        guard let object = object() else { return nil }
        return ObjectReader(object: object, path: path, context: context, keyStyle: keyStyle)
    }

    /// Reports a numeric bound, pydantic style, when `number` is outside it.
    ///
    /// The bounds are checked in pydantic-core's order (`le`, then `ge`, then `gt`) and NaN fails
    /// the first one present, as it does there. The bound goes into `ctx` as a float for a float
    /// field (`{"le": 90.0}`) and as an integer otherwise, as the reference renders it.
    @discardableResult
    func check(_ number: Double, atLeast minimum: Double? = nil, atMost maximum: Double? = nil,
        greaterThan exclusiveMinimum: Double? = nil, kind: ValidationIssue.Kind = .invalid, boundsAreFloats: Bool = false)
        -> Bool
    {
        func bound(_ name: String, _ limit: Double) -> JSONValue {
            let rendered = boundsAreFloats ? JSONNumber(limit) : JSONNumber(text: Self.format(limit))
            return .object(JSONObject([(name, rendered.map(JSONValue.number) ?? .null)]))
        }
        if let maximum, !(number <= maximum) {
            context.report(path, "less_than_equal", "Input should be less than or equal to \(Self.format(maximum))",
                kind: kind, input: value, context: bound("le", maximum))
            return false
        }
        if let minimum, !(number >= minimum) {
            context.report(path, "greater_than_equal", "Input should be greater than or equal to \(Self.format(minimum))",
                kind: kind, input: value, context: bound("ge", minimum))
            return false
        }
        if let exclusiveMinimum, !(number > exclusiveMinimum) {
            context.report(path, "greater_than", "Input should be greater than \(Self.format(exclusiveMinimum))",
                kind: kind, input: value, context: bound("gt", exclusiveMinimum))
            return false
        }
        return true
    }

    static func format(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
        return String(number)
    }
}
