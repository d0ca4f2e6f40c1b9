import AppNativeAuth
import AppNativeCrypto
import AppNativeJSON
import AppNativeTesting
import Foundation

/// Shared loading and key building for the vector-driven suites.
enum AuthVectors {
    static let loader = FixtureLoader(bundle: .module)

    static func object(_ path: String) throws -> [String: Any] {
        guard let object = try loader.json(path) as? [String: Any] else { throw FixtureLoader.MissingFixture(path: path) }
        return object
    }

    /// A JWK given as a Foundation dictionary, turned into a verification key by the product code.
    static func key(fromJWK jwk: [String: Any]) throws -> JWTVerificationKey {
        let data = try JSONSerialization.data(withJSONObject: jwk)
        guard let object = try JSONParser().parse(Array(data)).objectValue else { throw AuthError(.invalid, "jwk") }
        return try JSONWebKey.verificationKey(from: object)
    }

    /// Verifies a compact JWS with exactly one allowed algorithm: header checks, then signature.
    static func verifiesJWS(_ token: String, key: JWTVerificationKey) -> Bool {
        let policy = JWTPolicy(
            algorithm: key.algorithm,
            issuers: nil,
            audiences: nil,
            leeway: .zero,
            maxLifetime: nil,
            requiresKeyID: false
        )
        do {
            _ = try UnverifiedJWT(token, policy: policy).verifiedPayload(with: key)
            return true
        } catch {
            return false
        }
    }
}

/// Builds tokens for tests with any header and claims, signed by a test key.
struct TestTokenFactory: Sendable {
    let key: RSAPrivateKey
    let keyID: String

    /// The RFC 7515 A.2 key from the jwt-attacks corpus (its "trusted" key).
    static func trusted() throws -> TestTokenFactory {
        let corpus = try AuthVectors.object("vectors/jwt-attacks/jwt-attack-cases.json")
        let keys = corpus["keys"] as! [String: Any]
        let trusted = keys["trusted"] as! [String: Any]
        let pem = trusted["privateKeyPkcs8Pem"] as! String
        return TestTokenFactory(key: try RSAPrivateKey(pem: pem), keyID: "test-kid-1")
    }

    var jwksDocument: String {
        """
        {"keys":[{"kty":"RSA","use":"sig","kid":"\(keyID)","n":"\(Base64URL.encode(key.publicKey.modulus))","e":"\(Base64URL.encode(key.publicKey.exponent))"}]}
        """
    }

    /// Signs raw JSON texts as given (so tests can write duplicate keys, odd types, …).
    func token(headerJSON: String, claimsJSON: String) throws -> String {
        let input = Base64URL.encode(headerJSON) + "." + Base64URL.encode(claimsJSON)
        return input + "." + Base64URL.encode(try key.pkcs1v15SHA256Signature(for: Array(input.utf8)))
    }

    func token(claims: [String: Any], kid: String? = nil, alg: String = "RS256") throws -> String {
        var header: [String: Any] = ["alg": alg, "typ": "JWT"]
        header["kid"] = kid ?? keyID
        let headerData = try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])
        let claimsData = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        return try token(headerJSON: String(decoding: headerData, as: UTF8.self), claimsJSON: String(decoding: claimsData, as: UTF8.self))
    }
}
