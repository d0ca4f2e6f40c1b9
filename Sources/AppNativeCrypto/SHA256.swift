// Unsafe (OpenSSL EVP): keys and contexts are owned by the handle classes in OpenSSL/; inputs are
// buffers borrowed for the call with their lengths, and outputs are written into buffers allocated
// with the size OpenSSL reports or the algorithm fixes.

/// SHA-256 (FIPS 180-4 §6.2) through OpenSSL, with the algorithm fetched once per process.
public enum SHA256: Sendable {
    /// The digest length in bytes.
    public static let byteCount = 32

    /// The SHA-256 digest of `data`.
    public static func hash(_ data: UnsafeRawBufferPointer) -> [UInt8] {
        unsafe [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initialized in
            unsafe FetchedDigest.sha256.digest(data, into: UnsafeMutableRawBufferPointer(buffer))
            initialized = byteCount
        }
    }

    /// The SHA-256 digest of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        unsafe bytes.withUnsafeBytes { unsafe hash($0) }
    }

    /// The SHA-256 digest of the UTF-8 encoding of `text`.
    public static func hash(_ text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { unsafe hash(UnsafeRawBufferPointer($0)) }
    }

    /// The SHA-256 digest of `data` as a fixed-size value (for dictionary keys and caches).
    public static func digest(_ data: UnsafeRawBufferPointer) -> SHA256Digest {
        unsafe withUnsafeTemporaryAllocation(byteCount: byteCount, alignment: 8) { buffer in
            unsafe FetchedDigest.sha256.digest(data, into: buffer)
            return unsafe SHA256Digest(digestBytes: UnsafeRawBufferPointer(buffer))
        }
    }

    /// The SHA-256 digest of `bytes` as a fixed-size value.
    public static func digest(_ bytes: [UInt8]) -> SHA256Digest {
        unsafe bytes.withUnsafeBytes { unsafe digest($0) }
    }

    /// The SHA-256 digest of the UTF-8 encoding of `text` as a fixed-size value.
    public static func digest(_ text: String) -> SHA256Digest {
        var text = text
        return text.withUTF8 { unsafe digest(UnsafeRawBufferPointer($0)) }
    }

    /// Writes the digest of `data` into the first 32 bytes of `output` (module-internal hot path).
    static func hash(_ data: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        unsafe FetchedDigest.sha256.digest(data, into: output)
    }
}
