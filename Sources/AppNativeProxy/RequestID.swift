import AppNativeCrypto
public import AppNativeHTTP

/// `X-Request-Id`: accepted from the client when it looks like an id, generated otherwise, and
/// passed to the upstream and the access log.
public enum RequestID: Sendable {
    public static let header = "X-Request-Id"

    /// The client's id when it is 1–128 visible ASCII characters without quotes or backslashes,
    /// else a fresh random one (128 bits, hex).
    public static func resolve(from headers: HTTPHeaders, generator: RequestIDGenerator? = nil) -> String {
        if let given = headers.first(header), (1...128).contains(given.utf8.count),
            given.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        {
            return given
        }
        return generator?.next() ?? generate()
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

/// Fresh request ids (128 random bits, hex) from a pool of random bytes refilled 32 ids at a
/// time: one `RAND_bytes` call (with its fork check) per 32 requests instead of one each.
/// Owned by one event loop.
public final class RequestIDGenerator {
    private var pool = RandomBytePool(capacity: 512)
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    public init() {}

    public func next() -> String {
        // unsafe: `random` holds the 16 bytes drawn, `digits` 16 entries indexed by a nibble, and
        // `out` the 32 bytes reserved, each written once at 2·index and 2·index + 1 for index < 16.
        unsafe pool.draw(16) { random in
            unsafe Self.digits.withUnsafeBufferPointer { digits in
                unsafe String(unsafeUninitializedCapacity: 32) { out in
                    for index in 0..<16 {
                        let byte = unsafe random[index]
                        unsafe out[2 * index] = unsafe digits[Int(byte >> 4)]
                        unsafe out[2 * index + 1] = unsafe digits[Int(byte & 0x0F)]
                    }
                    return 32
                }
            }
        }
    }
}

@available(*, unavailable, message: "loop-owned")
extension RequestIDGenerator: Sendable {}
