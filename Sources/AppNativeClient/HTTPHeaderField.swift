/// One header field of a request or response, in the order it was given or received.
///
/// A list rather than a dictionary: field order and repeated names are significant
/// (RFC 9110 §5.2, §5.3).
public struct HTTPHeaderField: Sendable, Hashable, CustomStringConvertible {
    /// The field name as sent or received; compare case-insensitively (RFC 9110 §5.1).
    public var name: String
    /// The field value without surrounding whitespace.
    public var value: String

    /// Creates a header field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// The field name only: values can be credentials (`Authorization`, `Cookie`), so a header
    /// field printed by accident leaks nothing.
    public var description: String { "\(name): [value omitted]" }
}

extension Array where Element == HTTPHeaderField {
    /// The value of the first field called `name` (compared case-insensitively), if any.
    public func value(named name: String) -> String? {
        first { $0.name.isEqualIgnoringASCIICase(name) }?.value
    }

    /// The values of every field called `name` (compared case-insensitively), in order.
    public func values(named name: String) -> [String] {
        filter { $0.name.isEqualIgnoringASCIICase(name) }.map(\.value)
    }
}
