// Unsafe (OpenSSL EVP): keys and contexts are owned by the handle classes in OpenSSL/; inputs are
// buffers borrowed for the call with their lengths, and outputs are written into buffers allocated
// with the size OpenSSL reports or the algorithm fixes.

/// A P-256 (secp256r1) public key for verifying ECDSA SHA-256 signatures (JWS ES256,
/// RFC 7518 §3.4; FIPS 186-4 §6.4).
///
/// Every initialiser requires the named curve P-256 and a point that passes OpenSSL's
/// validation (on the curve, not the point at infinity).
///
/// One instance may be shared by any number of threads: the OpenSSL key is immutable and each
/// verification runs on a context of its own (see `SignatureContextPool`).
public final class P256PublicKey: Sendable {
    let key: EVPPKey
    private let verifier: SignatureContextPool
    /// The affine x coordinate, 32 big-endian bytes (the JWK `x` member, RFC 7518 §6.2.1.2).
    public let x: [UInt8]
    /// The affine y coordinate, 32 big-endian bytes (the JWK `y` member, RFC 7518 §6.2.1.3).
    public let y: [UInt8]

    /// The length of one coordinate and of each half of an `r || s` signature.
    static let coordinateByteCount = 32
    static let groupName = "prime256v1"

    /// A key from its affine coordinates, as found in a JWK.
    /// - Parameters:
    ///   - x: 32 bytes big-endian; a 33-byte value with a leading 00 (a signed encoding) is accepted.
    ///   - y: likewise.
    /// - Throws: `.invalidKey` for another length or a point not on P-256.
    public convenience init(x: [UInt8], y: [UInt8]) throws(CryptoError) {
        let x = try Self.coordinate(x, name: "x")
        let y = try Self.coordinate(y, name: "y")
        let der = DER.p256SubjectPublicKeyInfo(x: x, y: y)
        guard let key = unsafe der.withUnsafeBytes({ unsafe EVPPKey.decodeSubjectPublicKeyInfo($0) }) else {
            throw CryptoError(.invalidKey, "the point is not on P-256")
        }
        try self.init(validating: key)
    }

    /// A key from a DER SubjectPublicKeyInfo with id-ecPublicKey and namedCurve P-256
    /// (RFC 5480 §2).
    /// - Throws: `.invalidKey` if it does not parse (including a point not on the curve) or bytes
    ///   follow it; `.unsupportedKey` for another curve, explicit curve parameters or a non-EC key.
    public convenience init(spkiDER: [UInt8]) throws(CryptoError) {
        guard let key = unsafe spkiDER.withUnsafeBytes({ unsafe EVPPKey.decodeSubjectPublicKeyInfo($0) }) else {
            throw CryptoError(.invalidKey, "not a DER SubjectPublicKeyInfo with a valid point")
        }
        try self.init(validating: key)
    }

    /// A key from PEM text holding one `PUBLIC KEY` block (RFC 7468 §13); surrounding
    /// whitespace is ignored.
    /// - Throws: `.invalidPEM` for malformed PEM; otherwise as `init(spkiDER:)`.
    public convenience init(pem: String) throws(CryptoError) {
        let block = try PEMDocument.decodeBlock(pem, acceptedLabels: ["PUBLIC KEY"])
        guard let key = unsafe block.der.withUnsafeBytes({ unsafe EVPPKey.decodeSubjectPublicKeyInfo($0) }) else {
            throw CryptoError(.invalidKey, "PUBLIC KEY block is not a DER SubjectPublicKeyInfo with a valid point")
        }
        try self.init(validating: key)
    }

    init(validating key: EVPPKey) throws(CryptoError) {
        let coordinates = try Self.checkedCoordinates(of: key)
        guard key.isPublicKeyValid(quick: true) else {
            throw CryptoError(.invalidKey, "P-256 public key failed OpenSSL validation")
        }
        self.key = key
        verifier = SignatureContextPool(key: key, scheme: .ecdsaSHA256)
        x = coordinates.x
        y = coordinates.y
    }

    /// The 32-byte coordinates of an EC `key`, after checking that it is a P-256 key.
    static func checkedCoordinates(of key: EVPPKey) throws(CryptoError) -> (x: [UInt8], y: [UInt8]) {
        guard key.isA("EC") else {
            throw CryptoError(.unsupportedKey, "not an EC key")
        }
        guard let group = key.groupName else {
            throw CryptoError(.unsupportedKey, "EC key without a named curve")
        }
        guard group == groupName else {
            throw CryptoError(.unsupportedKey, "EC key on \(group), not P-256")
        }
        guard let x = key.ecPublicX?.bigEndianBytes, let y = key.ecPublicY?.bigEndianBytes,
            x.count <= coordinateByteCount, y.count <= coordinateByteCount
        else {
            throw CryptoError(.invalidKey, "EC key has no usable public point")
        }
        let pad = { (value: [UInt8]) in [UInt8](repeating: 0, count: coordinateByteCount - value.count) + value }
        return (pad(x), pad(y))
    }

    private static func coordinate(_ value: [UInt8], name: String) throws(CryptoError) -> [UInt8] {
        if value.count == coordinateByteCount { return value }
        if value.count == coordinateByteCount + 1, value[0] == 0 { return Array(value.dropFirst()) }
        throw CryptoError(.invalidKey, "P-256 coordinate \(name) is \(value.count) bytes; 32 required")
    }

    /// The key as DER SubjectPublicKeyInfo.
    public var spkiDER: [UInt8] { key.subjectPublicKeyInfoDER }

    /// Whether `signature`, in JWS form `r || s` (exactly 64 bytes, RFC 7518 §3.4), is a valid
    /// ECDSA P-256 SHA-256 signature of `message`. r and s must be in [1, n − 1], which rejects
    /// the all-zero signature of CVE-2022-21449.
    public func isValidSignature(rawRS signature: UnsafeRawBufferPointer, for message: UnsafeRawBufferPointer) -> Bool {
        guard let parsed = unsafe ECDSASignature(rawRS: signature) else { return false }
        return unsafe verify(parsed, message: message)
    }

    /// Whether `signature` (`r || s`, 64 bytes) is a valid ES256 signature of `message`.
    public func isValidSignature(rawRS signature: [UInt8], for message: [UInt8]) -> Bool {
        unsafe signature.withUnsafeBytes { signature in
            unsafe message.withUnsafeBytes { message in unsafe isValidSignature(rawRS: signature, for: message) }
        }
    }

    /// Whether `signature`, a strict DER ECDSA-Sig-Value (RFC 3279 §2.2.3; no BER forms, no
    /// trailing bytes), is a valid ECDSA P-256 SHA-256 signature of `message`.
    public func isValidSignature(der signature: UnsafeRawBufferPointer, for message: UnsafeRawBufferPointer) -> Bool {
        guard let parsed = unsafe ECDSASignature(der: signature) else { return false }
        return unsafe verify(parsed, message: message)
    }

    /// Whether the DER `signature` is a valid ECDSA P-256 SHA-256 signature of `message`.
    public func isValidSignature(der signature: [UInt8], for message: [UInt8]) -> Bool {
        unsafe signature.withUnsafeBytes { signature in
            unsafe message.withUnsafeBytes { message in unsafe isValidSignature(der: signature, for: message) }
        }
    }

    private func verify(_ signature: ECDSASignature, message: UnsafeRawBufferPointer) -> Bool {
        let der = signature.der
        return unsafe withUnsafeTemporaryAllocation(byteCount: SHA256.byteCount, alignment: 8) { digest in
            unsafe SHA256.hash(message, into: digest)
            return unsafe der.withUnsafeBytes { der in
                unsafe verifier.verify(signature: der, sha256Digest: UnsafeRawBufferPointer(digest))
            }
        }
    }
}
