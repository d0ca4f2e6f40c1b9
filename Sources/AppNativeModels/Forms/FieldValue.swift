public import AppNativeJSON

/// A field's prefill (`contract/models.md` §2.2 `value`): a string (also dates `YYYY-MM-DD`, times
/// `HH:mm`, datetimes `YYYY-MM-DDTHH:mm`), a number, a bool, a list of strings (multiselect) or a
/// list of row objects (repeat).
public enum FieldValue: Sendable, Hashable, ModelEncodable {
    case string(String)
    case number(JSONNumber)
    case bool(Bool)
    /// Multiselect choices; an empty list reads as this case.
    case strings([String])
    /// Repeat rows, each `{innerFieldId: value}`.
    case rows([JSONObject])

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        switch self {
        case .string(let text): .string(text)
        case .number(let number): .number(number)
        case .bool(let flag): .bool(flag)
        case .strings(let values): .array(values.map(JSONValue.string))
        case .rows(let rows): .array(rows.map(JSONValue.object))
        }
    }
}

extension Cursor {
    func fieldValue() -> FieldValue? {
        switch value {
        case .string(let text): return .string(text)
        // The reference's `str | float | bool | list[str] | list[dict]` reads every JSON number as a float (`12` is `12.0`).
        case .number(let number) where number.double != nil:
            return number.double.flatMap { JSONNumber($0) }.map { .number($0) }
        case .bool(let flag): return .bool(flag)
        case .array(let elements):
            if elements.allSatisfy({ $0.stringValue != nil }) {
                return .strings(elements.compactMap(\.stringValue))
            }
            if elements.allSatisfy({ $0.objectValue != nil }) {
                return .rows(elements.compactMap(\.objectValue))
            }
        default:
            break
        }
        context.report(
            path, "union_type", "Input should be a string, number, boolean, list of strings or list of objects",
            input: value)
        return nil
    }
}
