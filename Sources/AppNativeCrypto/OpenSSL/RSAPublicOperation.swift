internal import CAppNativeOpenSSL

/// RSASSA-PKCS1-v1_5 SHA-256 verification (RFC 8017 §8.2.2) computed on OpenSSL's Montgomery
/// arithmetic directly: RSAVP1 (§5.2.2) as square-and-multiply over the bits of e, then the
/// "encode and compare" of steps 3–4 against the one valid encoded message.
///
/// Why not `EVP_PKEY_verify`: around the 17 Montgomery products that s^65537 needs (e = 65537
/// is the only exponent `RSAKeyPolicy` admits), it creates and frees a `BN_CTX`, allocates and
/// clears a buffer, takes a lock to find the cached Montgomery context, converts s into the
/// Montgomery domain and back, and sets up `BN_mod_exp_mont`'s windowed exponentiation.
/// On one core this path verifies 1.22–1.25 times as many RSA-2048 signatures per second as
/// `EVP_PKEY_verify` (`Benchmarks/rsa-variants.sh`, docs/benchmarks.md). `EVP_PKEY_verify` stays the reference the tests compare it
/// with. Everything here is public (signature, key and message), so nothing needs constant time.
///
/// `@unchecked Sendable` invariant: the modulus, exponent, correction and Montgomery context
/// are built in `init` and only read afterwards (`BN_mod_mul_montgomery` takes the context
/// `const`, which is how OpenSSL's own RSA code shares it between threads); the per-call
/// numbers live in a `Scratch` that one caller at a time takes from `idle`.
final class RSAPublicOperation: @unchecked Sendable {
    /// The modulus length in bytes: k of RFC 8017.
    let byteCount: Int
    private let modulus: BigNumber
    private let exponent: BigNumber
    private let montgomery: OpaquePointer
    /// R^e mod n, for the last step of `recoverMessageRepresentative`.
    private let correction: BigNumber
    /// The EMSA-PKCS1-v1_5 encoding of a SHA-256 digest with the digest bytes zero, as a number.
    private let encodedPrefix: BigNumber
    private let idle = IdleObjects<Scratch>()

    /// The DER encoding of DigestInfo for SHA-256 without the hash (RFC 8017 §9.2, note 1).
    private static let sha256DigestInfoPrefix: [UInt8] = [
        0x30, 0x31, 0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20,
    ]
    private static let digestInfoByteCount = sha256DigestInfoPrefix.count + SHA256.byteCount

    /// The numbers one verification works on, and the `BN_CTX` the Montgomery code may borrow from.
    /// `@unchecked Sendable`: one caller at a time holds it, handed over through `idle`.
    private final class Scratch: @unchecked Sendable {
        let context: OpaquePointer
        let signature: OpaquePointer
        let power: OpaquePointer
        let expected: OpaquePointer

        init?() {
            let context = BN_CTX_new(), signature = BN_new(), power = BN_new(), expected = BN_new()
            guard let context, let signature, let power, let expected else {
                // Both free functions accept NULL.
                BN_free(expected)
                BN_free(power)
                BN_free(signature)
                BN_CTX_free(context)
                return nil
            }
            self.context = context
            self.signature = signature
            self.power = power
            self.expected = expected
        }

        deinit {
            BN_free(expected)
            BN_free(power)
            BN_free(signature)
            BN_CTX_free(context)
        }
    }

    /// The operation for modulus n and exponent e (big-endian, minimal), or nil if OpenSSL
    /// cannot set it up (out of memory). The caller has applied `RSAKeyPolicy` and OpenSSL's
    /// key validation, so n is odd (as Montgomery arithmetic needs) and k, at least 256 bytes,
    /// holds the padding and the DigestInfo.
    init?(modulus modulusBytes: [UInt8], exponent exponentBytes: [UInt8]) {
        guard modulusBytes.count >= Self.digestInfoByteCount + 11, !exponentBytes.isEmpty,
            let modulus = BigNumber(bigEndian: modulusBytes), let exponent = BigNumber(bigEndian: exponentBytes),
            let one = BigNumber(bigEndian: [1]), let correction = BigNumber(bigEndian: []),
            let encodedPrefix = BigNumber(bigEndian: Self.encodedPrefix(byteCount: modulusBytes.count)),
            let montgomery = BN_MONT_CTX_new()
        else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        let context = BN_CTX_new()
        defer { BN_CTX_free(context) }
        // Converting 1 into the Montgomery domain gives R mod n, whatever R OpenSSL chose.
        guard context != nil, BN_MONT_CTX_set(montgomery, modulus.pointer, context) == 1,
            BN_to_montgomery(correction.pointer, one.pointer, montgomery, context) == 1,
            BN_mod_exp(correction.pointer, correction.pointer, exponent.pointer, modulus.pointer, context) == 1
        else {
            BN_MONT_CTX_free(montgomery)
            OpenSSLErrorQueue.clear()
            return nil
        }
        self.modulus = modulus
        self.exponent = exponent
        self.montgomery = montgomery
        self.correction = correction
        self.encodedPrefix = encodedPrefix
        byteCount = modulusBytes.count
    }

    /// 0x00 0x01, then 0xFF up to the DigestInfo, 0x00, the DigestInfo's DER up to the hash, and
    /// 32 zero bytes where the hash goes: k bytes (RFC 8017 §9.2 step 5).
    private static func encodedPrefix(byteCount: Int) -> [UInt8] {
        let padding = byteCount - 3 - digestInfoByteCount
        return [0x00, 0x01] + [UInt8](repeating: 0xFF, count: padding) + [0x00] + sha256DigestInfoPrefix
            + [UInt8](repeating: 0, count: SHA256.byteCount)
    }

    deinit {
        BN_MONT_CTX_free(montgomery)
    }

    /// Whether `signature` (exactly k bytes) is the RSASSA-PKCS1-v1_5 signature of the message
    /// whose SHA-256 is `digest`.
    func verify(signature: UnsafeRawBufferPointer, sha256Digest digest: UnsafeRawBufferPointer) -> Bool {
        guard signature.count == byteCount, digest.count == SHA256.byteCount else { return false }
        guard let scratch = idle.take() ?? Scratch() else {
            OpenSSLErrorQueue.clear()
            return false
        }
        defer { idle.park(scratch) }
        guard recoverMessageRepresentative(signature, using: scratch), encodeMessage(digest: digest, using: scratch) else {
            OpenSSLErrorQueue.clear()
            return false
        }
        // Step 4 compares octet strings; I2OSP is one-to-one on 0 ..< 256^k, which holds both,
        // so comparing the numbers is the same test without writing m out byte by byte.
        return BN_cmp(scratch.power, scratch.expected) == 0
    }

    /// RSAVP1 (RFC 8017 §5.2.2): m = s^e mod n into `scratch.power`, or false if s is not below n
    /// (step 1: "signature representative out of range") or OpenSSL fails.
    ///
    /// Every step is one Montgomery product MM(a, b) = a·b·R⁻¹ mod n, and s never enters the
    /// Montgomery domain: starting from y = s, squaring keeps y = s^a·R^-(a-1) with a doubled
    /// and a product with s keeps it with a plus one, so after e's bits y = s^e·R^-(e-1), and
    /// MM(y, R^e mod n) = s^e, fully reduced. That saves the conversions in and out (a product
    /// by R² mod n and a reduction): 17 + 1 products for e = 65537.
    private func recoverMessageRepresentative(_ signature: UnsafeRawBufferPointer, using scratch: Scratch) -> Bool {
        let bytes = signature.baseAddress!.assumingMemoryBound(to: UInt8.self)
        guard BN_bin2bn(bytes, Int32(signature.count), scratch.signature) != nil,
            BN_cmp(scratch.signature, modulus.pointer) < 0,
            BN_copy(scratch.power, scratch.signature) != nil
        else { return false }
        // Left to right over e's bits below the top one: square, and multiply where the bit is set.
        var bit = BN_num_bits(exponent.pointer) - 2
        while bit >= 0 {
            guard BN_mod_mul_montgomery(scratch.power, scratch.power, scratch.power, montgomery, scratch.context) == 1
            else { return false }
            if BN_is_bit_set(exponent.pointer, bit) == 1 {
                guard
                    BN_mod_mul_montgomery(scratch.power, scratch.power, scratch.signature, montgomery, scratch.context)
                        == 1
                else { return false }
            }
            bit -= 1
        }
        return BN_mod_mul_montgomery(scratch.power, scratch.power, correction.pointer, montgomery, scratch.context) == 1
    }

    /// EMSA-PKCS1-v1_5-ENCODE (RFC 8017 §9.2) of a SHA-256 digest, as a number in
    /// `scratch.expected`: the key's `encodedPrefix` (0x00 0x01 0xFF…0xFF 0x00 and the DigestInfo
    /// up to the hash, followed by 32 zero bytes) plus the digest, which fills those 32 bytes.
    private func encodeMessage(digest: UnsafeRawBufferPointer, using scratch: Scratch) -> Bool {
        let bytes = digest.baseAddress!.assumingMemoryBound(to: UInt8.self)
        return BN_bin2bn(bytes, Int32(digest.count), scratch.expected) != nil
            && BN_add(scratch.expected, scratch.expected, encodedPrefix.pointer) == 1
    }
}
