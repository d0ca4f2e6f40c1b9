import AppNativeAuth
import AppNativeCore
import AppNativeCrypto
import AppNativeJSON

/// The client assertions of RFC 7523 §2.2 (`client_assertion_type` =
/// `urn:ietf:params:oauth:client-assertion-type:jwt-bearer`).
enum ClientAssertion {
    static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

    /// How long a signed assertion is valid: Entra ID asks for a short one (minutes).
    static let lifetime: Int64 = 300

    /// A signed assertion for one redemption, in the shape Entra ID documents for certificate
    /// credentials: header `alg` RS256, `typ` JWT, `x5t` (SHA-1 thumbprint, what Entra reads with
    /// RS256) and `x5t#S256` (SHA-256 thumbprint); claims `aud` = the token endpoint,
    /// `iss` = `sub` = the client id, a random `jti`, `nbf` = `iat` = now, `exp` = now + 5 minutes.
    static func signed(
        with credential: CertificateCredential,
        clientID: String,
        tokenEndpoint: String,
        now: Double
    ) throws(SignInProviderError) -> Secret<String> {
        let issuedAt = Int64(now.rounded(.down))
        var claims = JSONObject()
        claims["aud"] = .string(tokenEndpoint)
        claims["iss"] = .string(clientID)
        claims["sub"] = .string(clientID)
        claims["jti"] = .string(randomGUID())
        claims["nbf"] = .number(JSONNumber(issuedAt))
        claims["iat"] = .number(JSONNumber(issuedAt))
        claims["exp"] = .number(JSONNumber(issuedAt + lifetime))
        var header = JSONObject()
        header["x5t"] = .string(Base64URL.encode(credential.certificate.sha1Thumbprint))
        header["x5t#S256"] = .string(Base64URL.encode(credential.certificate.sha256Thumbprint))
        do {
            return Secret(try JWTSigner.sign(claims, with: .rsa(credential.privateKey, keyID: nil), extraHeader: header))
        } catch {
            throw .credential(reason: "client assertion could not be signed: \(error.code)")
        }
    }

    /// The largest federated token read; projected service-account tokens are about 1 KB.
    static let maxFederatedTokenBytes = 16 * 1024

    /// The current content of a federated token file. Read on every redemption: the file is
    /// rotated under the gateway (Azure Workload Identity refreshes it well before it expires).
    static func federatedToken(at path: String) throws(SignInProviderError) -> Secret<String> {
        let text = try CredentialFile.readText(path, role: "federated token file")
        // The file usually ends in a newline; the token itself never holds whitespace.
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0a || $0 == 0x0d }
        let token = String(decoding: text.utf8.drop(while: isSpace).reversed().drop(while: isSpace).reversed(), as: UTF8.self)
        guard !token.isEmpty else { throw .credential(reason: "federated token file is empty") }
        guard token.utf8.count <= maxFederatedTokenBytes else {
            throw .credential(reason: "federated token file holds more than \(maxFederatedTokenBytes) bytes")
        }
        // A compact JWS: three base64url segments (RFC 7515 §7.1). Checked so that the wrong file
        // fails here, named, rather than as an opaque refusal by the provider.
        let segments = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.count == 3, segments.allSatisfy({ !$0.isEmpty && $0.allSatisfy(Base64URL.isAlphabet) }) else {
            throw .credential(reason: "federated token file does not hold a JWT")
        }
        return Secret(token)
    }

    /// A random version-4 GUID (RFC 9562 §5.4), the `jti` form Entra ID's examples use.
    static func randomGUID() -> String {
        var bytes = SecureRandom.bytes(count: 16)
        bytes[6] = (bytes[6] & 0x0f) | 0x40
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { text.append(UInt8(ascii: "-")) }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
