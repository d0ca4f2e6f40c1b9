public import AppNativeJSON

/// What a `visibleIf` compares against: a string, number or bool, or a list of those
/// (`contract/models.md` §2.1).
public enum ConditionValue: Sendable, Hashable, ModelEncodable {
    case string(String)
    case number(JSONNumber)
    case bool(Bool)
    /// Visible when the other field equals any element.
    case list([ConditionValue])

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        switch self {
        case .string(let text): .string(text)
        case .number(let number): .number(number)
        case .bool(let flag): .bool(flag)
        case .list(let values): .array(values.map { $0.jsonValue(encoding) })
        }
    }
}

extension Cursor {
    func conditionValue(allowsList: Bool = true) -> ConditionValue? {
        switch value {
        case .string(let text): return .string(text)
        // The reference's `str | float | bool` reads every JSON number as a float (`12` is `12.0`).
        case .number(let number) where number.double != nil:
            return number.double.flatMap { JSONNumber($0) }.map { .number($0) }
        case .bool(let flag): return .bool(flag)
        case .array where allowsList:
            return array { $0.conditionValue(allowsList: false) }.map(ConditionValue.list)
        default:
            context.report(
                path, "union_type", "Input should be a valid string, number, boolean or list of those", input: value)
            return nil
        }
    }
}
