// Literals make hand-written documents (tests, signed tokens, fixed responses) read like JSON.
// `nil` is deliberately not a literal for `.null`: `object["k"] = nil` must keep meaning "remove".

extension JSONValue: ExpressibleByBooleanLiteral {
    /// `.bool(value)`.
    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// `.number` with the integer's digits.
    public init(integerLiteral value: Int64) {
        self = .number(JSONNumber(value))
    }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// `.number` with the shortest literal that reads back as `value`.
    ///
    /// - Precondition: the literal is finite.
    public init(floatLiteral value: Double) {
        guard let number = JSONNumber(value) else { preconditionFailure("a float literal in code is not finite; JSON numbers are") }
        self = .number(number)
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// `.string(value)`.
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// `.array(elements)`.
    public init(arrayLiteral elements: JSONValue...) {
        self = .array(elements)
    }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// `.object` with the members in the written order.
    ///
    /// - Precondition: no name repeats.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements))
    }
}
