/// SHA-256 (FIPS 180-4 §6.2) through OpenSSL, with the algorithm fetched once per process.
public enum SHA256: Sendable {
    /// The digest length in bytes.
    public static let byteCount = 32

    /// The SHA-256 digest of `data`.
    public static func hash(_ data: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initialized in
            FetchedDigest.sha256.digest(data, into: UnsafeMutableRawBufferPointer(buffer))
            initialized = byteCount
        }
    }

    /// The SHA-256 digest of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { hash($0) }
    }

    /// The SHA-256 digest of the UTF-8 encoding of `text`.
    public static func hash(_ text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }

    /// The SHA-256 digest of `data` as a fixed-size value (for dictionary keys and caches).
    public static func digest(_ data: UnsafeRawBufferPointer) -> SHA256Digest {
        withUnsafeTemporaryAllocation(byteCount: byteCount, alignment: 8) { buffer in
            FetchedDigest.sha256.digest(data, into: buffer)
            return SHA256Digest(digestBytes: UnsafeRawBufferPointer(buffer))
        }
    }

    /// The SHA-256 digest of `bytes` as a fixed-size value.
    public static func digest(_ bytes: [UInt8]) -> SHA256Digest {
        bytes.withUnsafeBytes { digest($0) }
    }

    /// The SHA-256 digest of the UTF-8 encoding of `text` as a fixed-size value.
    public static func digest(_ text: String) -> SHA256Digest {
        var text = text
        return text.withUTF8 { digest(UnsafeRawBufferPointer($0)) }
    }

    /// Writes the digest of `data` into the first 32 bytes of `output` (module-internal hot path).
    static func hash(_ data: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        FetchedDigest.sha256.digest(data, into: output)
    }
}
