import AppNativeCrypto
public import AppNativeJSON

/// One JSON Web Key (RFC 7517) turned into a verification key, for peers that verify tokens
/// this library issues (identity assertions) and for test vectors.
public enum JSONWebKey: Sendable {
    /// Builds a verification key from a public JWK (or the public part of a private one).
    ///
    /// Refuses keys not meant for signatures: `use` other than `sig` (RFC 7517 §4.2) or
    /// `key_ops` without `verify` (§4.3). The key's `alg`, when present, must match its type.
    ///
    /// - Throws: `AuthError(.invalid)` for unusable keys.
    public static func verificationKey(from jwk: JSONObject) throws(AuthError) -> JWTVerificationKey {
        if let use = jwk["use"], use.stringValue != "sig" { throw AuthError(.invalid, "JWK use is not sig") }
        if let operations = jwk["key_ops"] {
            guard let list = operations.arrayValue, list.contains(.string("verify")) else {
                throw AuthError(.invalid, "JWK key_ops does not allow verify")
            }
        }
        let key: JWTVerificationKey
        do {
            switch jwk["kty"]?.stringValue {
            case "RSA":
                guard let n = bytes(jwk, "n"), let e = bytes(jwk, "e") else { throw AuthError(.invalid, "RSA JWK lacks n or e") }
                key = .rsa(try RSAPublicKey(modulus: n, exponent: e))
            case "EC":
                guard jwk["crv"]?.stringValue == "P-256", let x = bytes(jwk, "x"), let y = bytes(jwk, "y") else {
                    throw AuthError(.invalid, "EC JWK is not a P-256 key with x and y")
                }
                key = .p256(try P256PublicKey(x: x, y: y))
            case "oct":
                guard let k = bytes(jwk, "k"), !k.isEmpty else { throw AuthError(.invalid, "oct JWK lacks k") }
                key = .hmac(try HMACSHA256(key: SecretBytes(k)))
            default:
                throw AuthError(.invalid, "JWK kty is not RSA, EC or oct")
            }
        } catch let error as AuthError {
            throw error
        } catch {
            throw AuthError(.invalid, "JWK key rejected: \(error)")
        }
        if let alg = jwk["alg"], alg.stringValue != key.algorithm.rawValue {
            throw AuthError(.invalid, "JWK alg does not match its key type")
        }
        return key
    }

    private static func bytes(_ jwk: JSONObject, _ name: String) -> [UInt8]? {
        jwk[name]?.stringValue.flatMap(Base64URL.decode)
    }
}
