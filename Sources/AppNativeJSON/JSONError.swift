/// Why a document is not the strict RFC 8259 JSON that ``JSONParser`` accepts.
///
/// The error carries positions and kinds only. Parsed documents are often secret (a JWT payload,
/// a key set), so neither `reason` nor `description` ever quotes a byte of the input.
/// Equality compares `code` only, so tests match codes.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable error kind. New codes can be added without breaking callers.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case syntax
            case duplicateKey = "duplicate_key"
            case tooDeep = "too_deep"
            case tooLarge = "too_large"
            case invalidUTF8 = "invalid_utf8"
            case invalidEscape = "invalid_escape"
            case loneSurrogate = "lone_surrogate"
            case invalidNumber = "invalid_number"
            case trailingData = "trailing_data"
            case empty
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// A byte that the RFC 8259 grammar does not allow here: a missing `,` `:` or bracket, an
        /// unknown literal, a raw control character in a string, an unterminated string, a byte order mark.
        public static let syntax = Code(.syntax)
        /// An object repeats a member name, compared after unescaping (RFC 8259 §4, RFC 7493 §2.3).
        public static let duplicateKey = Code(.duplicateKey)
        /// Arrays and objects nest deeper than `JSONParser.Options.maxDepth`.
        public static let tooDeep = Code(.tooDeep)
        /// The input is longer than `JSONParser.Options.maxBytes`.
        public static let tooLarge = Code(.tooLarge)
        /// The input is not well-formed UTF-8 (RFC 8259 §8.1, Unicode Table 3-7).
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// A backslash escape other than the ones RFC 8259 §7 lists, or `\u` without four hex digits.
        public static let invalidEscape = Code(.invalidEscape)
        /// A `\u` escape names a surrogate that is not part of a high-low pair (RFC 7493 §2.1).
        public static let loneSurrogate = Code(.loneSurrogate)
        /// A number outside the RFC 8259 §6 grammar: leading zero, `+`, `.5`, `1.`, hex, a bare `-`.
        public static let invalidNumber = Code(.invalidNumber)
        /// Something other than whitespace follows the one top-level value (RFC 8259 §2).
        public static let trailingData = Code(.trailingData)
        /// The input holds no value: it is empty or only whitespace.
        public static let empty = Code(.empty)

        /// The code as logged (`duplicate_key`, `too_deep`, …).
        public var description: String { value.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// The failed rule in words. Never contains input bytes.
    public let reason: String
    /// The byte offset in the input where the problem was found; for `.tooLarge`, `maxBytes`.
    public let offset: Int
    /// The source file that threw, for logs.
    public let file: String
    /// The source line that threw, for logs.
    public let line: Int

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: the kind of failure.
    ///   - reason: the failed rule in words; must not quote the input.
    ///   - offset: the byte offset in the input.
    public init(_ code: Code, _ reason: String, offset: Int, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.offset = offset
        self.file = file
        self.line = line
    }

    /// Whether both errors have the same code; reason, offset and site are ignored.
    public static func == (lhs: JSONError, rhs: JSONError) -> Bool { lhs.code == rhs.code }

    /// `code at byte offset: reason`, safe to log: it never contains input bytes.
    public var description: String { "\(code) at byte \(offset): \(reason)" }
}
