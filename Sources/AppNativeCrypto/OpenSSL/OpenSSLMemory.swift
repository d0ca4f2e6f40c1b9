internal import CAppNativeOpenSSL

// Unsafe: each wrapper passes OpenSSL a buffer with its own count, borrowed for the call.

/// OpenSSL's memory primitives that the optimiser may not remove or shortcut.
enum OpenSSLMemory {
    /// Overwrites `buffer` with zeros in a way the compiler cannot elide (`OPENSSL_cleanse`).
    static func cleanse(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        unsafe OPENSSL_cleanse(base, buffer.count)
    }

    /// Compares two equal-length buffers in time that depends only on their length (`CRYPTO_memcmp`).
    static func constantTimeEquals(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        precondition(a.count == b.count, "constant-time comparison needs equal lengths; check the length first")
        guard a.count > 0 else { return true }
        return unsafe CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0
    }

    /// Fills `buffer` from OpenSSL's CSPRNG (`RAND_bytes`). Traps if the generator fails: a process
    /// that cannot get randomness must not go on minting secrets.
    static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) {
        var remaining = unsafe buffer
        while let base = remaining.baseAddress, remaining.count > 0 {
            let chunk = min(remaining.count, Int(Int32.max))
            let status = unsafe RAND_bytes(base.assumingMemoryBound(to: UInt8.self), Int32(chunk))
            guard status == 1 else {
                OpenSSLErrorQueue.clear()
                preconditionFailure("RAND_bytes failed: the CSPRNG is unavailable")
            }
            unsafe remaining = UnsafeMutableRawBufferPointer(rebasing: remaining[chunk...])
        }
    }
}
