// Unsafe: the 32 digest bytes are read as four unaligned 8-byte words from a buffer of 32 bytes.

/// A SHA-256 digest held inline as four words: no heap allocation, cheap to hash and compare.
///
/// Meant for cache and dictionary keys (a token's digest as the key of a verification cache,
/// a key's thumbprint). `==` is not constant time: never use it to check a MAC or a secret,
/// use `ConstantTime.equals` for that.
public struct SHA256Digest: Hashable, Sendable, CustomStringConvertible {
    // Big-endian words, so `bytes` and `description` read in digest order.
    private let word0: UInt64
    private let word1: UInt64
    private let word2: UInt64
    private let word3: UInt64

    /// The digest in `bytes`, which must be exactly 32 bytes long; nil otherwise.
    public init?(bytes: [UInt8]) {
        guard bytes.count == SHA256.byteCount else { return nil }
        self = unsafe bytes.withUnsafeBytes { unsafe SHA256Digest(digestBytes: $0) }
    }

    init(digestBytes buffer: UnsafeRawBufferPointer) {
        precondition(buffer.count >= SHA256.byteCount, "a SHA-256 digest is 32 bytes")
        word0 = unsafe UInt64(bigEndian: buffer.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
        word1 = unsafe UInt64(bigEndian: buffer.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        word2 = unsafe UInt64(bigEndian: buffer.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
        word3 = unsafe UInt64(bigEndian: buffer.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
    }

    /// The 32 digest bytes.
    public var bytes: [UInt8] {
        unsafe withUnsafeBytes { unsafe Array($0) }
    }

    /// Lends the 32 digest bytes to `body`.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var words = (word0.bigEndian, word1.bigEndian, word2.bigEndian, word3.bigEndian)
        return unsafe try Swift.withUnsafeBytes(of: &words) { unsafe try body($0) }
    }

    /// Lower-case hex of the digest.
    public var description: String {
        let digits = Array("0123456789abcdef".utf8)
        return unsafe withUnsafeBytes { bytes in
            var text = [UInt8]()
            text.reserveCapacity(64)
            for unsafe byte in unsafe bytes {
                text.append(digits[Int(byte >> 4)])
                text.append(digits[Int(byte & 0x0f)])
            }
            return String(decoding: text, as: UTF8.self)
        }
    }
}
