public import AppNativeJSON

// Unsafe: claim bytes are borrowed from the JSON object view for the comparison only.

/// The verified claims of a JWT, with typed readers.
///
/// Kept as a validated view of the payload bytes: the verifier reads about a dozen claims once
/// per token, so building a `String` for every name and value up front would be wasted work.
public struct JWTClaims: Sendable {
    let view: JSONObjectView

    init(_ view: JSONObjectView) {
        self.view = view
    }

    /// All claims, as `JSONParser` reads the payload.
    public var object: JSONObject { view.object }

    public subscript(name: String) -> JSONValue? { view[name] }

    /// Whether the claim is present, whatever its type.
    public func contains(_ name: String) -> Bool { view.contains(name) }

    /// The claim when it is a string.
    public func string(_ name: String) -> String? { view.string(name) }

    /// Whether the claim is present and a string.
    public func isString(_ name: String) -> Bool { view.isString(name) }

    /// Whether the claim is a string equal to one of `candidates`, compared exactly (byte for byte
    /// in UTF-8: RFC 7519 §2 StringOrURI values are compared without any normalisation); `nil`
    /// when the claim is absent or not a string. Builds no `String` for the claim.
    public func string(_ name: String, isOneOf candidates: [String]) -> Bool? {
        unsafe view.withStringBytes(name) { unsafe Self.isOne(of: candidates, UnsafeRawBufferPointer($0)) }
    }

    /// Whether `value` (UTF-8) is one of `candidates`, compared byte for byte.
    static func isOne(of candidates: [String], _ value: UnsafeRawBufferPointer) -> Bool {
        candidates.contains { candidate in
            var candidate = candidate
            return candidate.withUTF8 { unsafe haveSameBytes(UnsafeRawBufferPointer($0), value) }
        }
    }

    /// The claim trimmed of whitespace, `nil` when absent, not a string, or blank.
    public func nonBlankString(_ name: String) -> String? {
        guard let value = view.string(name) else { return nil }
        let trimmed = value.trimmingWhitespace()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// A NumericDate claim (RFC 7519 §2): `.absent`, `.invalid` (not a finite number) or seconds.
    public func numericDate(_ name: String) -> NumericDate {
        // One lookup for the usual case (present and a number); the second only tells absent
        // from invalid.
        guard let seconds = view.double(name) else { return view.contains(name) ? .invalid : .absent }
        return seconds.isFinite ? .seconds(seconds) : .invalid
    }

    /// The claim as a list of strings: a string gives one element, an array of strings its elements,
    /// anything else `nil`.
    public func stringList(_ name: String) -> [String]? {
        if let single = view.string(name) { return [single] }
        switch view[name] {
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
