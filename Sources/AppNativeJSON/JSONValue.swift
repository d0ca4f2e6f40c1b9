/// A JSON value (RFC 8259 §3).
///
/// Strings compare by Unicode scalars, not by `String`'s canonical equivalence, so two values
/// are equal only when they serialize to the same text up to object member order. Numbers
/// compare by their literal (see ``JSONNumber``).
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, kept as its literal (RFC 8259 §6).
    case number(JSONNumber)
    /// A string of Unicode scalars (RFC 8259 §7).
    case string(String)
    /// An ordered list of values (RFC 8259 §5).
    case array([JSONValue])
    /// Named members with unique names, in order (RFC 8259 §4).
    case object(JSONObject)

    /// The string, or `nil` for any other kind of value.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The object, or `nil` for any other kind of value.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The elements, or `nil` for any other kind of value.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The Boolean, or `nil` for any other kind of value.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number, or `nil` for any other kind of value.
    public var numberValue: JSONNumber? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// Whether the value is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value of the member named `key` when this is an object with such a member; `nil`
    /// otherwise, including for every non-object value.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// Whether both are the same kind with equal contents: strings by scalars, numbers by
    /// literal, objects regardless of member order.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let left), .bool(let right)): left == right
        case (.number(let left), .number(let right)): left == right
        case (.string(let left), .string(let right)): BytewiseString.same(left, right)
        case (.array(let left), .array(let right)): left == right
        case (.object(let left), .object(let right)): left == right
        default: false
        }
    }

    /// Hashes consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0 as UInt8)
        case .bool(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case .number(let value):
            hasher.combine(2 as UInt8)
            hasher.combine(value)
        case .string(let value):
            hasher.combine(3 as UInt8)
            hasher.combine(BytewiseString(value))
        case .array(let value):
            hasher.combine(4 as UInt8)
            hasher.combine(value)
        case .object(let value):
            hasher.combine(5 as UInt8)
            hasher.combine(value)
        }
    }
}
