// Unsafe: the pointer entry points view the caller's buffer, borrowed from the header storage
// for the call, as a `Span` once; the scan reads through the span (bounds-checked).

/// Reads a bearer token from an `Authorization` header value (contract/auth.md §2, RFC 6750 §2.1).
public enum BearerCredential: Sendable {
    /// - Returns: `nil` when there is no bearer credential (header absent or empty, another scheme);
    ///   otherwise the token, which may be `""` (`Bearer` alone still takes the token path and fails).
    public static func token(fromAuthorization header: String?) -> String? {
        guard let header, !header.isEmpty else { return nil }
        // Every real header is ASCII: scan its bytes (Unicode White_Space in ASCII is 09-0D, 20).
        if let result = asciiToken(header) { return result }
        return unicodeToken(header)
    }

    /// `.some(answer)` for an ASCII header, `nil` when a non-ASCII byte needs the Unicode scan.
    private static func asciiToken(_ header: String) -> String?? {
        let utf8 = header.utf8
        guard let range = asciiTokenRange(utf8.span) else { return nil }
        return .some(range.map { range in
            String(Substring(utf8[utf8.index(utf8.startIndex, offsetBy: range.lowerBound)..<utf8.index(utf8.startIndex, offsetBy: range.upperBound)]))
        })
    }

    /// The token of an `Authorization` value given as its field bytes (`HTTPHeaders` storage):
    /// `.some(answer)` when every byte is ASCII, `nil` when the value needs the Unicode scan of
    /// `token(fromAuthorization:)` on its decoded string. `knownASCII`: the caller already knows
    /// (the parser recorded it), so the bytes are not scanned for it again.
    public static func asciiToken(_ bytes: UnsafeBufferPointer<UInt8>, knownASCII: Bool = false) -> String?? {
        guard let range = unsafe asciiTokenRange(bytes.span, knownASCII: knownASCII) else { return nil }
        return .some(range.map { unsafe String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) })
    }

    /// `asciiToken` as the token's position in `bytes`, for callers that can use it in place.
    public static func asciiTokenRange(_ bytes: UnsafeBufferPointer<UInt8>, knownASCII: Bool = false) -> Range<Int>?? {
        unsafe asciiTokenRange(bytes.span, knownASCII: knownASCII)
    }

    /// `asciiToken` as the token's position in `bytes`, for callers that can use it in place.
    public static func asciiTokenRange(_ bytes: Span<UInt8>, knownASCII: Bool = false) -> Range<Int>?? {
        let isSpace = { (byte: UInt8) in byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
        let count = bytes.count
        guard count > 0 else { return .some(nil) }
        if !knownASCII {
            // One OR over every byte (a token is about 1.5 KB): a loop the compiler vectorises.
            var high: UInt8 = 0
            for index in bytes.indices { high |= bytes[index] }
            if high & 0x80 != 0 { return nil }
        }
        var index = 0
        while index < count, isSpace(bytes[index]) { index += 1 }
        let schemeStart = index
        while index < count, !isSpace(bytes[index]) { index += 1 }
        // "bearer", compared with the ASCII case bit folded (letters only, so `| 0x20` is exact).
        let s = schemeStart
        guard index - s == 6, bytes[s] | 0x20 == 0x62, bytes[s + 1] | 0x20 == 0x65, bytes[s + 2] | 0x20 == 0x61,
            bytes[s + 3] | 0x20 == 0x72, bytes[s + 4] | 0x20 == 0x65, bytes[s + 5] | 0x20 == 0x72
        else { return .some(nil) }
        var start = index, end = count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        return .some(start..<end)
    }

    private static func unicodeToken(_ header: String) -> String? {
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
