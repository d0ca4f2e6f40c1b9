/// A value that must never be printed: tokens, cookies, keys, API keys.
///
/// `description`, `debugDescription` and string interpolation all print a redaction, so a
/// secret that ends up in a log line or an error by mistake leaks nothing (docs/style.md §4).
/// Use `AppNativeCrypto.SecretBytes` for key material that must also be zeroed on release.
public struct Secret<Value: Sendable>: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The wrapped value; reading it is an explicit, greppable act.
    public let revealed: Value

    public init(_ value: Value) {
        revealed = value
    }

    public var description: String { "[redacted]" }
    public var debugDescription: String { "[redacted]" }
}

extension Secret: CustomReflectable {
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
