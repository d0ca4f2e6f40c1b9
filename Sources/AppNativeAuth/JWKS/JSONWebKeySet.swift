public import AppNativeCrypto
import AppNativeJSON

/// The RSA signing keys of a JSON Web Key Set (RFC 7517 §5), by `kid`.
public struct JSONWebKeySet: Sendable {
    public let keys: [String: RSAPublicKey]

    public init(keys: [String: RSAPublicKey]) {
        self.keys = keys
    }

    /// The largest JWKS document accepted (contract/auth.md §6: read at most 1,000,000 bytes).
    public static let maxDocumentBytes = 1_000_000

    /// Parses a JWKS document by the rules of contract/auth.md §6.
    ///
    /// The top level must be an object with a `keys` array. A usable entry is an object with a
    /// non-empty string `kid`, `kty` `"RSA"`, and a base64url `n`/`e` making an RSA key of at least
    /// 2048 bits with exponent 65537. Entries with `use` other than `sig` or `alg` other than `RS256`
    /// are skipped too. Everything else (EC keys, `oct`, strings, incomplete RSA) is skipped silently;
    /// the first entry wins when a `kid` repeats.
    ///
    /// - Throws: `AuthError(.keysUnavailable)` when the document is not such an object or no entry is usable.
    public static func parse(_ document: [UInt8]) throws(AuthError) -> JSONWebKeySet {
        guard document.count <= maxDocumentBytes else {
            throw AuthError(.keysUnavailable, "JWKS document larger than \(maxDocumentBytes) bytes")
        }
        let root: JSONValue
        do {
            root = try JSONParser().parse(document)
        } catch {
            throw AuthError(.keysUnavailable, "JWKS document is not valid JSON (\(error.code))")
        }
        guard let entries = root.objectValue?["keys"]?.arrayValue else {
            throw AuthError(.keysUnavailable, "JWKS document has no keys array")
        }
        var keys = [String: RSAPublicKey]()
        for entry in entries {
            guard let jwk = entry.objectValue,
                let kid = jwk["kid"]?.stringValue, !kid.isEmpty,
                keys[kid] == nil,
                jwk["kty"]?.stringValue == "RSA",
                jwk["use"].map({ $0.stringValue == "sig" }) ?? true,
                jwk["alg"].map({ $0.stringValue == JWSAlgorithm.rs256.rawValue }) ?? true,
                let modulus = jwk["n"]?.stringValue.flatMap(Base64URL.decode),
                let exponent = jwk["e"]?.stringValue.flatMap(Base64URL.decode),
                let key = try? RSAPublicKey(modulus: modulus, exponent: exponent)
            else { continue }
            keys[kid] = key
        }
        guard !keys.isEmpty else { throw AuthError(.keysUnavailable, "JWKS document has no usable RSA key") }
        return JSONWebKeySet(keys: keys)
    }
}
