internal import CAppNativeOpenSSL

/// Owns one `BIGNUM` handed out by OpenSSL (for example by `EVP_PKEY_get_bn_param`).
/// Only public values (RSA modulus and exponent) pass through here, so it is freed, not cleared.
final class BigNumber {
    let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// The non-negative number with these big-endian bytes, or nil if OpenSSL is out of memory.
    convenience init?(bigEndian bytes: [UInt8]) {
        guard let pointer = bytes.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress, Int32($0.count), nil) })
        else { return nil }
        self.init(owning: pointer)
    }

    deinit {
        BN_free(pointer)
    }

    /// The number of significant bits (`BN_num_bits`).
    var bitCount: Int { Int(BN_num_bits(pointer)) }

    /// The magnitude as minimal big-endian bytes (empty for zero).
    var bigEndianBytes: [UInt8] {
        // BN_num_bytes is a function-like macro over BN_num_bits.
        let count = (bitCount + 7) / 8
        guard count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = Int(BN_bn2bin(pointer, buffer.baseAddress))
        }
    }
}
