public import AppNativeCore

/// The one error type of AppNativeCrypto (docs/style.md §4).
///
/// `reason` says which check failed ("modulus is 1024 bits; at least 2048 required") and never
/// contains key, secret or signature bytes, so it is safe to log. Equality compares `code` only,
/// so tests and callers match on codes, not on wording.
public struct CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as an open set of constants: adding a code does not break callers
    /// that switch over the ones they know.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case invalidKey
            case weakKey
            case unsupportedKey
            case invalidPEM
            case signingFailed
            case randomFailed
            case keyGenerationFailed
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// The key material does not parse or fails validation (not on the curve, even modulus,
        /// trailing bytes after the DER structure, wrong coordinate length).
        public static let invalidKey = Code(.invalidKey)
        /// The key parses but is too small for policy (RSA below 2048 bits, an empty HMAC key).
        public static let weakKey = Code(.weakKey)
        /// The key is of a type, curve or parameter this module refuses (RSA exponent other than
        /// 65537, P-384 where P-256 is required, RSA where EC is required, encrypted PEM).
        public static let unsupportedKey = Code(.unsupportedKey)
        /// The PEM text is malformed: no block, mismatched labels, bad base64, extra text.
        public static let invalidPEM = Code(.invalidPEM)
        /// OpenSSL could not produce a signature.
        public static let signingFailed = Code(.signingFailed)
        /// The random generator failed (reserved: `SecureRandom` traps instead of throwing).
        public static let randomFailed = Code(.randomFailed)
        /// OpenSSL could not generate a key.
        public static let keyGenerationFailed = Code(.keyGenerationFailed)

        public var description: String { value.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// Which check failed, for logs. Never contains key, secret or signature bytes.
    public let reason: String
    /// Where the error was thrown.
    public let location: SourceLocation

    /// The file that threw (`#fileID`).
    public var file: String { location.file }
    /// The line that threw.
    public var line: Int { location.line }

    /// - Parameters:
    ///   - code: what went wrong.
    ///   - reason: which check failed; must not contain secret or key bytes.
    ///   - file: the throwing file; leave the default.
    ///   - line: the throwing line; leave the default.
    public init(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        location = SourceLocation(file: file, line: line)
    }

    public static func == (lhs: CryptoError, rhs: CryptoError) -> Bool {
        lhs.code == rhs.code
    }

    public var description: String { "CryptoError.\(code): \(reason) [\(location)]" }
}
