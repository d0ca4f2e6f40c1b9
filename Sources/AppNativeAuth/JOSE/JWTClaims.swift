public import AppNativeJSON

/// The verified claims of a JWT: a JSON object with typed readers.
public struct JWTClaims: Sendable {
    public let object: JSONObject

    public init(_ object: JSONObject) {
        self.object = object
    }

    public subscript(name: String) -> JSONValue? { object[name] }

    /// The claim when it is a string.
    public func string(_ name: String) -> String? { object[name]?.stringValue }

    /// The claim trimmed of whitespace, `nil` when absent, not a string, or blank.
    public func nonBlankString(_ name: String) -> String? {
        guard let value = object[name]?.stringValue else { return nil }
        let trimmed = value.trimmingWhitespace()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// A NumericDate claim (RFC 7519 §2): `.absent`, `.invalid` (not a finite number) or seconds.
    public func numericDate(_ name: String) -> NumericDate {
        guard let value = object[name] else { return .absent }
        guard let number = value.numberValue, let seconds = number.double, seconds.isFinite else { return .invalid }
        return .seconds(seconds)
    }

    /// The claim as a list of strings: a string gives one element, an array of strings its elements,
    /// anything else `nil`.
    public func stringList(_ name: String) -> [String]? {
        switch object[name] {
        case .string(let value)?: return [value]
        case .array(let values)?:
            var out = [String]()
            out.reserveCapacity(values.count)
            for value in values {
                guard let text = value.stringValue else { return nil }
                out.append(text)
            }
            return out
        default: return nil
        }
    }

    public enum NumericDate: Sendable, Equatable {
        case absent
        case invalid
        case seconds(Double)
    }
}

extension String {
    /// Trims the characters Python's `str.strip()` removes for ASCII input (space, \t, \n, \r, \v, \f)
    /// plus Unicode whitespace, matching the reference's "blank" notion.
    func trimmingWhitespace() -> String {
        // Fast path: claims are almost always already trimmed ASCII-bounded strings.
        let utf8 = self.utf8
        if let first = utf8.first, let last = utf8.last, !Self.mayBeWhitespace(first), !Self.mayBeWhitespace(last) {
            return self
        }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(scalars[first...last])
    }

    /// ASCII whitespace, or a byte of a multi-byte sequence (which may encode Unicode whitespace).
    private static func mayBeWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte) || byte >= 0x80
    }
}
