import AppNativeCrypto
public import AppNativeHTTP

/// `X-Request-Id`: accepted from the client when it looks like an id, generated otherwise, and
/// passed to the upstream and the access log.
public enum RequestID: Sendable {
    public static let header = "X-Request-Id"

    /// The client's id when it is 1–128 visible ASCII characters without quotes or backslashes,
    /// else a fresh random one (128 bits, hex).
    public static func resolve(from headers: HTTPHeaders) -> String {
        if let given = headers.first(header), (1...128).contains(given.utf8.count),
            given.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        {
            return given
        }
        return generate()
    }

    public static func generate() -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(32)
        for byte in SecureRandom.bytes(count: 16) {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
