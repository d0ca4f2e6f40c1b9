import AppNativeCore

/// The JSON error body of the contract, `{"detail": "..."}`.
public enum JSONErrorBody: Sendable {
    public static func detail(_ message: String) -> String {
        var out = "{\"detail\":"
        out += quoted(message)
        out += "}"
        return out
    }

    /// `text` as a JSON string literal.
    public static func quotedString(_ text: String) -> String { quoted(text) }

    static func quoted(_ text: String) -> String {
        var out = ""
        LogLine.appendQuoted(text, to: &out)
        return out
    }
}
