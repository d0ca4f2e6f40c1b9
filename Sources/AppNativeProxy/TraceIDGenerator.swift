import AppNativeCrypto

/// Random 64-bit words for span and trace ids (xoshiro256**), one generator per loop, seeded
/// from the system's randomness. W3C Trace Context asks for ids that are unique and random
/// enough not to collide; they are not secrets (every hop sees them), so a fast generator
/// serves where a cryptographic draw per request would cost more than the rest of the trace.
struct TraceIDGenerator {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    init() {
        var pool = RandomBytePool(capacity: 32)
        // unsafe: `bytes` holds the 32 bytes drawn; word * 8 + byte stays below 32.
        let words = unsafe pool.draw(32) { bytes in
            (0..<4).map { word in (0..<8).reduce(UInt64(0)) { unsafe $0 << 8 | UInt64(bytes[word * 8 + $1]) } }
        }
        s0 = words[0]
        s1 = words[1]
        s2 = words[2]
        // An all-zero state would only ever give zeros.
        s3 = words.allSatisfy { $0 == 0 } ? 0x9E37_79B9_7F4A_7C15 : words[3]
    }

    mutating func next() -> UInt64 {
        let result = rotate(s1 &* 5, 7) &* 9
        let shifted = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= shifted
        s3 = rotate(s3, 45)
        return result
    }

    private func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 {
        (value << count) | (value >> (64 - count))
    }
}
