public import AppNativeCore
public import AppNativeCrypto
import Foundation

/// How the gateway authenticates itself to the token endpoint: one of the three credentials an
/// Entra ID app registration accepts (configuration: `ENTRA_CLIENT_SECRET`,
/// `ENTRA_CLIENT_CERTIFICATE_FILE` + `ENTRA_CLIENT_KEY_FILE`, `AZURE_FEDERATED_TOKEN_FILE`).
public enum ClientCredential: Sendable {
    /// A client secret, sent as `client_secret` in the request body (RFC 6749 §2.3.1), the form
    /// Entra ID documents for the code redemption.
    case secret(Secret<String>)
    /// A certificate registered with the app and its private key: each redemption carries a fresh
    /// RS256 client assertion naming the certificate by thumbprint (RFC 7523 §2.2, `private_key_jwt`).
    case certificate(CertificateCredential)
    /// A token file another system keeps fresh (Azure Workload Identity projects one into the
    /// pod and rotates it): read on every redemption and sent as the client assertion.
    case federatedTokenFile(path: String)

    /// A certificate credential from two PEM files: the certificate (one `CERTIFICATE` block) and
    /// its RSA private key (unencrypted PKCS #8 or PKCS #1).
    ///
    /// - Throws: `SignInProviderError.credential` when a file cannot be read, does not hold what it
    ///   should, or the key does not belong to the certificate. The reason names the file's role,
    ///   never its content.
    public static func certificate(certificateFile: String, privateKeyFile: String) throws(SignInProviderError) -> ClientCredential {
        let certificatePEM = try CredentialFile.readText(certificateFile, role: "client certificate file")
        let keyPEM = try CredentialFile.readText(privateKeyFile, role: "client key file")
        let certificate: X509Certificate
        do {
            certificate = try X509Certificate(pem: certificatePEM)
        } catch {
            throw .credential(reason: "client certificate file: \(error.reason)")
        }
        let key: RSAPrivateKey
        do {
            key = try RSAPrivateKey(pem: keyPEM)
        } catch {
            throw .credential(reason: "client key file: \(error.reason)")
        }
        return .certificate(try CertificateCredential(certificate: certificate, privateKey: key))
    }
}

/// A certificate and the private key that belongs to it.
public struct CertificateCredential: Sendable {
    public let certificate: X509Certificate
    public let privateKey: RSAPrivateKey

    /// - Throws: `SignInProviderError.credential` when the certificate's key is not RSA or is not
    ///   the public half of `privateKey` (Entra would refuse every assertion).
    public init(certificate: X509Certificate, privateKey: RSAPrivateKey) throws(SignInProviderError) {
        guard let certificateKey = certificate.rsaPublicKey else {
            throw .credential(reason: "client certificate does not hold an acceptable RSA public key")
        }
        guard certificateKey.modulus == privateKey.publicKey.modulus, certificateKey.exponent == privateKey.publicKey.exponent
        else {
            throw .credential(reason: "client key does not belong to the client certificate")
        }
        self.certificate = certificate
        self.privateKey = privateKey
    }
}

/// Reads the small files a credential lives in, with a size cap.
enum CredentialFile {
    /// No credential file is anywhere near this; a larger one is a mistake (the wrong path).
    static let maxBytes = 64 * 1024

    static func readText(_ path: String, role: String) throws(SignInProviderError) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .credential(reason: "\(role) cannot be opened")
        }
        defer { try? handle.close() }
        let data: Data?
        do {
            data = try handle.read(upToCount: maxBytes + 1)
        } catch {
            throw .credential(reason: "\(role) cannot be read")
        }
        let bytes = data.map { [UInt8]($0) } ?? []
        guard bytes.count <= maxBytes else { throw .credential(reason: "\(role) is larger than \(maxBytes) bytes") }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .credential(reason: "\(role) is not UTF-8 text")
        }
        return text
    }
}
