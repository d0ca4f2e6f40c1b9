/// Comparison of MACs, tokens and other secrets without a timing side channel.
///
/// The lengths are compared first and may leak (they are public: a MAC's length is fixed by its
/// algorithm); the contents are compared with `CRYPTO_memcmp`, whose running time depends only
/// on the length. Never compare secrets with `==` (docs/style.md §2).
public enum ConstantTime: Sendable {
    /// Whether `a` and `b` hold the same bytes.
    public static func equals(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        return OpenSSLMemory.constantTimeEquals(a, b)
    }

    /// Whether `a` and `b` hold the same bytes.
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBytes { a in b.withUnsafeBytes { b in equals(a, b) } }
    }

    /// Whether `a` and the secret `b` hold the same bytes.
    public static func equals(_ a: [UInt8], _ b: SecretBytes) -> Bool {
        a.withUnsafeBytes { a in b.withUnsafeBytes { b in equals(a, b) } }
    }
}
