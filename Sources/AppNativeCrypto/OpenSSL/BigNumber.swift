internal import CAppNativeOpenSSL

/// Owns one `BIGNUM` handed out by OpenSSL (for example by `EVP_PKEY_get_bn_param`).
/// Only public values (RSA modulus and exponent) pass through here, so it is freed, not cleared.
@safe
final class BigNumber {
    // @safe: the C handle is created in init, never leaves this module, and is freed once in deinit.
    // Every `unsafe` call in it passes that live handle, and buffers borrowed (with their lengths) from
    // `withUnsafeBytes` or `withUnsafeMutableBytes` for the duration of that call only.
    let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) {
        unsafe self.pointer = pointer
    }

    /// The non-negative number with these big-endian bytes, or nil if OpenSSL is out of memory.
    convenience init?(bigEndian bytes: [UInt8]) {
        guard let pointer = unsafe bytes.withUnsafeBufferPointer({ unsafe BN_bin2bn($0.baseAddress, Int32($0.count), nil) })
        else { return nil }
        unsafe self.init(owning: pointer)
    }

    deinit {
        unsafe BN_free(pointer)
    }

    /// The number of significant bits (`BN_num_bits`).
    var bitCount: Int { unsafe Int(BN_num_bits(pointer)) }

    /// The magnitude as minimal big-endian bytes (empty for zero).
    var bigEndianBytes: [UInt8] {
        // BN_num_bytes is a function-like macro over BN_num_bits.
        let count = (bitCount + 7) / 8
        guard count > 0 else { return [] }
        return unsafe [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = unsafe Int(BN_bn2bin(pointer, buffer.baseAddress))
        }
    }
}
