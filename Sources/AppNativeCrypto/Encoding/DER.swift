/// The few DER encodings (X.690 §10) this module builds itself: SubjectPublicKeyInfo for keys
/// given as JWK-style components, so every public key enters OpenSSL through one decoder.
enum DER {
    /// A definite length in the shortest form (X.690 §10.1).
    static func appendLength(_ length: Int, to output: inout [UInt8]) {
        precondition(length >= 0)
        if length < 0x80 {
            output.append(UInt8(length))
            return
        }
        var bytes: [UInt8] = []
        var remaining = length
        while remaining > 0 {
            bytes.insert(UInt8(remaining & 0xff), at: 0)
            remaining >>= 8
        }
        output.append(0x80 | UInt8(bytes.count))
        output.append(contentsOf: bytes)
    }

    /// A tag-length-value with `contents`.
    static func element(tag: UInt8, _ contents: [UInt8]) -> [UInt8] {
        var output = [tag]
        appendLength(contents.count, to: &output)
        output.append(contentsOf: contents)
        return output
    }

    /// A non-negative INTEGER from unsigned big-endian `magnitude` (leading zeros allowed):
    /// minimal octets, with a 00 octet added when the top bit is set (X.690 §8.3.2).
    static func unsignedInteger(_ magnitude: some Collection<UInt8>) -> [UInt8] {
        var contents = Array(magnitude.drop { $0 == 0 })
        if contents.isEmpty || contents[0] & 0x80 != 0 { contents.insert(0, at: 0) }
        return element(tag: 0x02, contents)
    }

    static func sequence(_ parts: [UInt8]...) -> [UInt8] {
        element(tag: 0x30, parts.flatMap { $0 })
    }

    /// AlgorithmIdentifier { rsaEncryption (1.2.840.113549.1.1.1), NULL } (RFC 8017 A.1).
    private static let rsaEncryptionAlgorithm: [UInt8] = [
        0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00,
    ]

    /// SubjectPublicKeyInfo of an RSA key: BIT STRING over RSAPublicKey { n, e } (RFC 8017 A.1.1).
    static func rsaSubjectPublicKeyInfo(modulus: [UInt8], exponent: [UInt8]) -> [UInt8] {
        let rsaPublicKey = sequence(unsignedInteger(modulus), unsignedInteger(exponent))
        return sequence(rsaEncryptionAlgorithm, element(tag: 0x03, [0x00] + rsaPublicKey))
    }

    /// SubjectPublicKeyInfo header of a P-256 key: id-ecPublicKey with namedCurve prime256v1
    /// (RFC 5480 §2), then a 66-byte BIT STRING holding the uncompressed point.
    private static let p256SubjectPublicKeyInfoPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01,
        0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00, 0x04,
    ]

    /// SubjectPublicKeyInfo of a P-256 point (`x`, `y`: 32 bytes each).
    static func p256SubjectPublicKeyInfo(x: [UInt8], y: [UInt8]) -> [UInt8] {
        precondition(x.count == 32 && y.count == 32, "P-256 coordinates are 32 bytes")
        return p256SubjectPublicKeyInfoPrefix + x + y
    }
}
