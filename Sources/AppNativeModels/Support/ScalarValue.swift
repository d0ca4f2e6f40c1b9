public import AppNativeJSON

/// The contract's "Value": a string or a number, shown as given (`contract/models.md` §0).
///
/// Numbers keep their literal so `12` stays `12` and `10.5` stays `10.5` through a round trip.
public enum ScalarValue: Sendable, Hashable, ModelEncodable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    case string(String)
    case number(JSONNumber)

    /// `.string(value)`.
    public init(stringLiteral value: String) { self = .string(value) }

    /// `.number` with the integer's digits.
    public init(integerLiteral value: Int) { self = .number(JSONNumber(value)) }

    /// The string or number as JSON; the encoding mode does not matter.
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        switch self {
        case .string(let text): .string(text)
        case .number(let number): .number(number)
        }
    }
}

extension Cursor {
    func scalar() -> ScalarValue? {
        switch value {
        case .string(let text): return .string(text)
        case .number(let number) where number.double != nil: return .number(number)
        // The reference's `str | int | float` union reads a boolean as the integer 0 or 1.
        case .bool(let flag): return .number(JSONNumber(flag ? 1 : 0))
        default:
            context.report(path, "union_type", "Input should be a valid string or number", input: value)
            return nil
        }
    }
}
