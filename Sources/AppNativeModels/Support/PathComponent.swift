/// One step of a JSON path: an object member name or an array index (FastAPI `loc` element).
public enum PathComponent: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral,
    ExpressibleByIntegerLiteral
{
    /// An object member, named as it appeared in the input.
    case key(String)
    /// An array element, counted from 0.
    case index(Int)

    /// `.key(value)`, so tests can write paths as `["widgets", 0, "id"]`.
    public init(stringLiteral value: String) { self = .key(value) }

    /// `.index(value)`.
    public init(integerLiteral value: Int) { self = .index(value) }

    /// The key, or the index in decimal.
    public var description: String {
        switch self {
        case .key(let key): key
        case .index(let index): String(index)
        }
    }
}
