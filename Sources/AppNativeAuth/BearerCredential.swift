/// Reads a bearer token from an `Authorization` header value (auth.md §2, RFC 6750 §2.1).
public enum BearerCredential: Sendable {
    /// - Returns: `nil` when there is no bearer credential (header absent or empty, another scheme);
    ///   otherwise the token, which may be `""` (`Bearer` alone still takes the token path and fails).
    public static func token(fromAuthorization header: String?) -> String? {
        guard let header, !header.isEmpty else { return nil }
        let scalars = Array(header.unicodeScalars)
        var index = 0
        while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 }
        let schemeStart = index
        while index < scalars.count, !scalars[index].properties.isWhitespace { index += 1 }
        let scheme = String(String.UnicodeScalarView(scalars[schemeStart..<index]))
        guard scheme.lowercased() == "bearer" else { return nil }
        let rest = String(String.UnicodeScalarView(scalars[index...]))
        return rest.trimmingWhitespace()
    }
}
