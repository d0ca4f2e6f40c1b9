public import AppNativeCrypto
public import AppNativeJSON

/// Issues compact JWS tokens (session cookies, identity assertions, dev tokens, APNs provider tokens).
public enum JWTSigner: Sendable {
    /// Signs `claims` with `key`. The header is `{"alg":…,"typ":"JWT"}` plus `kid` when the key has one
    /// and any `extraHeader` members (APNs wants no `typ`: pass `includesType: false`; a client
    /// assertion names its certificate with `x5t`). `extraHeader` cannot replace `alg`, `typ` or `kid`.
    public static func sign(
        _ claims: JSONObject,
        with key: JWTSigningKey,
        includesType: Bool = true,
        extraHeader: JSONObject = JSONObject()
    ) throws(CryptoError) -> String {
        var header = JSONObject()
        header["alg"] = .string(key.algorithm.rawValue)
        if includesType { header["typ"] = .string("JWT") }
        if let keyID = key.keyID { header["kid"] = .string(keyID) }
        for (name, value) in extraHeader where !header.contains(name) { header[name] = value }
        var signingInput = Base64URL.encode(JSONSerializer.serialize(.object(header)))
        signingInput += "."
        signingInput += Base64URL.encode(JSONSerializer.serialize(.object(claims)))
        let signature = try key.signature(for: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }
}
