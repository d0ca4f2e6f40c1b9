// Unsafe: every function reads `bytes[i]` only for `i < bytes.count` (the 8-byte loads stop 8 bytes
// before the end) of a buffer its caller borrows from the header storage for the call.

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
        var header = header
        return header.withUTF8 { unsafe asciiToken($0) }
    }

    /// The token of an `Authorization` value given as its field bytes (`HTTPHeaders` storage):
    /// `.some(answer)` when every byte is ASCII, `nil` when the value needs the Unicode scan of
    /// `token(fromAuthorization:)` on its decoded string. `knownASCII`: the caller already knows
    /// (the parser recorded it), so the bytes are not scanned for it again.
    public static func asciiToken(_ bytes: UnsafeBufferPointer<UInt8>, knownASCII: Bool = false) -> String?? {
        guard let range = unsafe asciiTokenRange(bytes, knownASCII: knownASCII) else { return nil }
        return .some(range.map { unsafe String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) })
    }

    /// `asciiToken` as the token's position in `bytes`, for callers that can use it in place.
    public static func asciiTokenRange(_ bytes: UnsafeBufferPointer<UInt8>, knownASCII: Bool = false) -> Range<Int>?? {
        let isSpace = { (byte: UInt8) in byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
        let count = bytes.count
        guard let base = bytes.baseAddress else { return .some(nil) }
        var index = 0
        if !knownASCII {
            // ASCII check eight bytes at a time: a token is about 1.5 KB.
            var high: UInt64 = 0
            while count - index >= 8 {
                unsafe high |= UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                index += 8
            }
            while index < count {
                unsafe high |= UInt64(base[index])
                index += 1
            }
            if high & 0x8080_8080_8080_8080 != 0 { return nil }
            index = 0
        }
        while index < count, unsafe isSpace(bytes[index]) { index += 1 }
        let schemeStart = index
        while index < count, unsafe !isSpace(bytes[index]) { index += 1 }
        // "bearer", compared with the ASCII case bit folded (letters only, so `| 0x20` is exact).
        let s = schemeStart
        guard index - s == 6, unsafe bytes[s] | 0x20 == 0x62, unsafe bytes[s + 1] | 0x20 == 0x65, unsafe bytes[s + 2] | 0x20 == 0x61,
            unsafe bytes[s + 3] | 0x20 == 0x72, unsafe bytes[s + 4] | 0x20 == 0x65, unsafe bytes[s + 5] | 0x20 == 0x72
        else { return .some(nil) }
        var start = index, end = count
        while start < end, unsafe isSpace(bytes[start]) { start += 1 }
        while end > start, unsafe isSpace(bytes[end - 1]) { end -= 1 }
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
