@testable import AppNativeCrypto
import Testing

/// `RSAPublicOperation` (RSAVP1 on OpenSSL's Montgomery code, then encode and compare) against
/// OpenSSL's own `RSA_verify` through `SignatureContextPool`, on keys of every size the policy
/// allows in practice. The Wycheproof suite covers the encodings of a 2048-bit key.
@Suite("RSA public operation")
struct RSAPublicOperationTests {
    /// The verdict of OpenSSL's own verification (it encodes the DigestInfo itself).
    static func reference(_ key: RSAPublicKey, _ signature: [UInt8], _ message: [UInt8]) -> Bool {
        let pool = SignatureContextPool(key: key.key, scheme: .rsaPKCS1v15SHA256)
        let digest = SHA256.hash(message)
        return signature.withUnsafeBytes { signature in
            digest.withUnsafeBytes { pool.verify(signature: signature, sha256Digest: $0) }
        }
    }

    /// `a + b` for big-endian numbers of the same length, or nil if the sum needs another byte.
    static func sum(_ a: [UInt8], _ b: [UInt8]) -> [UInt8]? {
        var result = [UInt8](repeating: 0, count: a.count)
        var carry = 0
        for index in a.indices.reversed() {
            let total = Int(a[index]) + Int(b[index]) + carry
            result[index] = UInt8(total & 0xFF)
            carry = total >> 8
        }
        return carry == 0 ? result : nil
    }

    // 2100 bits fill neither whole bytes nor whole 64-bit words (k = 263, 33 words for R).
    @Test("agrees with OpenSSL on valid and altered signatures", arguments: [2048, 2100, 3072, 4096])
    func agreesWithOpenSSL(bits: Int) throws {
        let key = try RSAPrivateKey.generate(bits: bits)
        let publicKey = key.publicKey
        var generator = SystemRandomNumberGenerator()
        for round in 0..<24 {
            let message = (0..<(round * 7)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let signature = try key.pkcs1v15SHA256Signature(for: message)
            #expect(publicKey.isValidPKCS1v15SHA256Signature(signature, for: message), "\(bits) bits, round \(round)")
            #expect(Self.reference(publicKey, signature, message))

            var altered = signature
            let bit = Int.random(in: 0..<(signature.count * 8), using: &generator)
            altered[bit / 8] ^= 1 << (bit % 8)
            let verdict = publicKey.isValidPKCS1v15SHA256Signature(altered, for: message)
            #expect(!verdict, "\(bits) bits, round \(round): a flipped bit \(bit) verified")
            #expect(verdict == Self.reference(publicKey, altered, message))
            #expect(!publicKey.isValidPKCS1v15SHA256Signature(signature, for: message + [0]))
        }
    }

    @Test("a signature representative outside 0 ..< n is refused, also s + n (RFC 8017 §5.2.2 step 1)")
    func outOfRange() throws {
        // A modulus well below 2^2048 leaves room for s + n in 256 bytes.
        var key = try RSAPrivateKey.generate()
        while key.publicKey.modulus[0] >= 0xE0 { key = try RSAPrivateKey.generate() }
        let publicKey = key.publicKey
        let modulus = publicKey.modulus
        #expect(modulus.count == publicKey.signatureByteCount)

        var shifted: (message: [UInt8], signature: [UInt8])?
        for index in 0..<64 where shifted == nil {
            let message = Array("message \(index)".utf8)
            let signature = try key.pkcs1v15SHA256Signature(for: message)
            if let plusModulus = Self.sum(signature, modulus) { shifted = (message, plusModulus) }
        }
        let (message, plusModulus) = try #require(shifted, "no signature below 2^2048 - n in 64 tries")
        // s + n is congruent to a valid s: only the range check refuses it.
        let accepted = publicKey.isValidPKCS1v15SHA256Signature(plusModulus, for: message)
        #expect(!accepted, "s + n verified")
        #expect(!Self.reference(publicKey, plusModulus, message))

        var modulusMinusOne = modulus
        modulusMinusOne[modulusMinusOne.count - 1] -= 1  // n is odd, so no borrow
        let k = publicKey.signatureByteCount
        for candidate in [
            modulus, modulusMinusOne, [UInt8](repeating: 0xFF, count: k), [UInt8](repeating: 0, count: k),
            [UInt8](repeating: 0, count: k - 1) + [1],
        ] {
            let accepted = publicKey.isValidPKCS1v15SHA256Signature(candidate, for: message)
            #expect(!accepted, "a signature of \(candidate.prefix(2)) … \(candidate.suffix(2)) verified")
            #expect(!Self.reference(publicKey, candidate, message))
        }
    }

    @Test("without FIPS in OpenSSL's default properties the Montgomery engine is chosen; the provider engine agrees")
    func engines() throws {
        // Debian's OpenSSL ships no FIPS configuration; with `default_properties = fips=yes` the
        // provider engine would be the default.
        #expect(RSAVerificationEngine.default == .montgomery)
        let key = try RSAPrivateKey.generate()
        let viaProvider = try RSAPublicKey(validating: key.publicKey.key, engine: .provider)
        for index in 0..<16 {
            let message = Array("message \(index)".utf8)
            var signature = try key.pkcs1v15SHA256Signature(for: message)
            #expect(viaProvider.isValidPKCS1v15SHA256Signature(signature, for: message))
            #expect(key.publicKey.isValidPKCS1v15SHA256Signature(signature, for: message))
            signature[index * 7] ^= 0x40
            #expect(!viaProvider.isValidPKCS1v15SHA256Signature(signature, for: message))
            #expect(!key.publicKey.isValidPKCS1v15SHA256Signature(signature, for: message))
        }
    }

    @Test("one key verifies from many threads at once")
    func concurrent() async throws {
        let key = try RSAPrivateKey.generate()
        let message = Array("concurrent".utf8)
        let signature = try key.pkcs1v15SHA256Signature(for: message)
        let publicKey = key.publicKey
        let verdicts = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask {
                    index.isMultiple(of: 2)
                        ? publicKey.isValidPKCS1v15SHA256Signature(signature, for: message)
                        : !publicKey.isValidPKCS1v15SHA256Signature(signature, for: message + [1])
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(verdicts.count == 64 && verdicts.allSatisfy { $0 })
    }
}
