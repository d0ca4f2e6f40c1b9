// Unsafe: both buffers are borrowed for the comparison; CRYPTO_memcmp reads `a.count` bytes of each
// after the counts were found equal.

/// Comparison of MACs, tokens and other secrets without a timing side channel.
///
/// The lengths are compared first and may leak (they are public: a MAC's length is fixed by its
/// algorithm); the contents are compared with `CRYPTO_memcmp`, whose running time depends only
/// on the length. Never compare secrets with `==` (docs/style.md §2).
public enum ConstantTime: Sendable {
    /// Whether `a` and `b` hold the same bytes.
    public static func equals(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        return unsafe OpenSSLMemory.constantTimeEquals(a, b)
    }

    /// Whether `a` and `b` hold the same bytes.
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        unsafe a.withUnsafeBytes { a in unsafe b.withUnsafeBytes { b in unsafe equals(a, b) } }
    }

    /// Whether `a` and the secret `b` hold the same bytes.
    public static func equals(_ a: [UInt8], _ b: SecretBytes) -> Bool {
        unsafe a.withUnsafeBytes { a in unsafe b.withUnsafeBytes { b in unsafe equals(a, b) } }
    }
}
