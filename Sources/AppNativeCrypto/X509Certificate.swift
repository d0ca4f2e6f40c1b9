// Unsafe (OpenSSL EVP): keys and contexts are owned by the handle classes in OpenSSL/; inputs are
// buffers borrowed for the call with their lengths, and outputs are written into buffers allocated
// with the size OpenSSL reports or the algorithm fixes.

/// An X.509 certificate read from PEM (RFC 5280, RFC 7468 §5): the certificate a client
/// registered with its identity provider, named in the `x5t` / `x5t#S256` header of the
/// assertions it signs with the matching private key (RFC 7515 §4.1.7, §4.1.8).
///
/// Only what naming it needs is exposed: the DER bytes, their thumbprints and the subject key.
/// The certificate's validity dates and chain are the provider's business, not checked here.
public final class X509Certificate: Sendable {
    /// The certificate's DER encoding, exactly as read.
    public let der: [UInt8]
    /// The subject public key when it is an RSA key the key policy accepts; nil otherwise.
    public let rsaPublicKey: RSAPublicKey?

    /// A certificate from PEM text holding one `CERTIFICATE` block; surrounding whitespace is ignored.
    /// - Throws: `.invalidPEM` for malformed PEM or more than one block; `.unsupportedKey` when
    ///   the block is not a certificate; `.invalidKey` if the DER does not parse as a certificate.
    public init(pem: String) throws(CryptoError) {
        let block = try PEMDocument.decodeBlock(pem, acceptedLabels: ["CERTIFICATE"])
        let der = unsafe block.der.withUnsafeBytes { unsafe [UInt8]($0) }
        guard let certificate = unsafe der.withUnsafeBytes({ unsafe X509Handle.decode($0) }) else {
            throw CryptoError(.invalidKey, "CERTIFICATE block is not a DER X.509 certificate")
        }
        self.der = der
        rsaPublicKey = certificate.publicKey.flatMap { try? RSAPublicKey(validating: $0) }
    }

    /// The SHA-1 digest of the DER encoding (the `x5t` thumbprint).
    public var sha1Thumbprint: [UInt8] {
        unsafe [UInt8](unsafeUninitializedCapacity: FetchedDigest.sha1.byteCount) { buffer, initialized in
            unsafe der.withUnsafeBytes { unsafe FetchedDigest.sha1.digest($0, into: UnsafeMutableRawBufferPointer(buffer)) }
            initialized = FetchedDigest.sha1.byteCount
        }
    }

    /// The SHA-256 digest of the DER encoding (the `x5t#S256` thumbprint).
    public var sha256Thumbprint: [UInt8] { SHA256.hash(der) }
}
