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
        let signingInput = signingInput(claims, algorithm: key.algorithm, keyID: key.keyID, includesType: includesType, extraHeader: extraHeader)
        let signature = try key.signature(for: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Signs `claims` as HS256 with `key` (header `{"alg":"HS256","typ":"JWT"}`). An HMAC over a
    /// key OpenSSL accepted has no failure to report, so this does not throw.
    public static func sign(_ claims: JSONObject, withHMAC key: HMACSHA256) -> String {
        let signingInput = signingInput(claims, algorithm: .hs256, keyID: nil, includesType: true, extraHeader: JSONObject())
        return signingInput + "." + Base64URL.encode(key.authenticationCode(for: Array(signingInput.utf8)))
    }

    private static func signingInput(
        _ claims: JSONObject, algorithm: JWSAlgorithm, keyID: String?, includesType: Bool, extraHeader: JSONObject
    ) -> String {
        var header = JSONObject()
        header["alg"] = .string(algorithm.rawValue)
        if includesType { header["typ"] = .string("JWT") }
        if let keyID { header["kid"] = .string(keyID) }
        for (name, value) in extraHeader where !header.contains(name) { header[name] = value }
        var signingInput = Base64URL.encode(JSONSerializer.serialize(.object(header)))
        signingInput += "."
        signingInput += Base64URL.encode(JSONSerializer.serialize(.object(claims)))
        return signingInput
    }
}
