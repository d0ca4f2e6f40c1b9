/// What this project accepts as an RSA signature key, in one place.
///
/// - At least 2048 bits (NIST SP 800-131A Rev. 2 §3 disallows smaller keys for signatures;
///   Entra ID publishes 2048-bit keys).
/// - At most 8192 bits, so a hostile or broken key set cannot make each verification arbitrarily
///   expensive.
/// - Public exponent exactly 65537 (F4): what Entra ID and every mainstream IdP use; small
///   exponents such as 3 are where Bleichenbacher-style forgeries against lax verifiers live.
/// - An odd modulus (an even one is not an RSA modulus).
enum RSAKeyPolicy {
    static let minimumModulusBits = 2048
    static let maximumModulusBits = 8192
    static let requiredExponent: [UInt8] = [0x01, 0x00, 0x01]

    /// Checks minimal big-endian `modulus` and `exponent` (no leading zero bytes).
    static func check(modulus: [UInt8], exponent: [UInt8]) throws(CryptoError) {
        guard let first = modulus.first, first != 0 else {
            throw CryptoError(.invalidKey, "RSA modulus is empty or zero")
        }
        let bits = modulus.count * 8 - first.leadingZeroBitCount
        guard bits >= minimumModulusBits else {
            throw CryptoError(.weakKey, "RSA modulus is \(bits) bits; at least \(minimumModulusBits) required")
        }
        guard bits <= maximumModulusBits else {
            throw CryptoError(.unsupportedKey, "RSA modulus is \(bits) bits; at most \(maximumModulusBits) accepted")
        }
        guard modulus[modulus.count - 1] & 1 == 1 else {
            throw CryptoError(.invalidKey, "RSA modulus is even")
        }
        guard exponent == requiredExponent else {
            throw CryptoError(.unsupportedKey, "RSA public exponent is not 65537")
        }
    }

    /// Checks a key size requested for generation.
    static func checkGeneration(bits: Int) throws(CryptoError) {
        guard bits >= minimumModulusBits else {
            throw CryptoError(.weakKey, "RSA key size \(bits) requested; at least \(minimumModulusBits) required")
        }
        guard bits <= maximumModulusBits else {
            throw CryptoError(.unsupportedKey, "RSA key size \(bits) requested; at most \(maximumModulusBits) accepted")
        }
    }
}
