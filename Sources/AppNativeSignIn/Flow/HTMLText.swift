/// Text made safe for HTML element content and quoted attribute values.
public enum HTMLText: Sendable {
    /// `text` with the five HTML-significant characters escaped. Scalars, not characters, are
    /// compared: a `<` followed by a combining mark is one `Character` that is not `"<"`, yet the
    /// browser's tokenizer still reads the `<`.
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
