// Unsafe: RAND_bytes fills exactly the buffer it is given, with its count.

/// Cryptographically secure random bytes from OpenSSL's DRBG (`RAND_bytes`).
///
/// Failure traps instead of throwing: a process that cannot get randomness must not go on to
/// mint session ids, nonces or keys, and no caller could handle it better (docs/style.md §4).
public enum SecureRandom: Sendable {
    /// `count` random bytes. `count` must not be negative.
    public static func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0, "negative random byte count")
        guard count > 0 else { return [] }
        return unsafe [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            unsafe OpenSSLMemory.fillRandom(UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }

    /// Overwrites `buffer` with random bytes.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        unsafe OpenSSLMemory.fillRandom(buffer)
    }
}
