public import AppNativeJSON
import AppNativeCore

/// A compact JWS whose header has been checked but whose signature has not (yet).
///
/// Splitting verification in two lets the key lookup, which may have to wait for a JWKS
/// reload, sit between the header checks (auth.md §3 steps 1–4) and the rest (steps 6–13).
public struct UnverifiedJWT: Sendable {
    /// The decoded protected header.
    public let header: JSONObject
    /// The header's `kid`, when present (a string; other types were rejected).
    public let keyID: String?
    /// The token's bytes; the signing input is everything before the second dot.
    private let token: [UInt8]
    private let firstDot: Int
    private let secondDot: Int

    /// Runs the header checks of `policy` on `token`.
    ///
    /// - Throws: `AuthError` with `.malformed` (size, shape, header JSON, `kid` type, `crit`),
    ///   `.algorithm` or `.noKid`.
    public init(_ token: String, policy: JWTPolicy) throws(AuthError) {
        var text = token
        let bytes = text.withUTF8 { Array($0) }
        // Step 1: refuse oversized tokens before decoding anything (RFC 8725 §3.3 style resource bound).
        guard !bytes.isEmpty, bytes.count <= policy.maxTokenBytes else {
            throw AuthError(.malformed, "token empty or longer than \(policy.maxTokenBytes) bytes")
        }
        // Step 2: exactly three segments (RFC 7515 §7.1); five would be a JWE.
        let dot = UInt8(ascii: ".")
        guard let first = bytes.firstIndex(of: dot),
            let second = bytes[(first + 1)...].firstIndex(of: dot),
            !bytes[(second + 1)...].contains(dot)
        else { throw AuthError(.malformed, "not three dot-separated segments") }
        let dots = [first, second]
        let header = try Self.header(bytes, 0..<dots[0])
        // RFC 7515 §4.1.11: a recipient must reject `crit` extensions it does not understand; we understand none.
        if header.contains("crit") { throw AuthError(.malformed, "header lists critical extensions") }
        var keyID: String?
        if let kid = header["kid"] {
            guard let text = kid.stringValue else { throw AuthError(.malformed, "header kid is not a string") }
            keyID = text
        }
        // Step 3: the algorithm is pinned before any key work (rejects none, HS/RS confusion).
        guard header["alg"]?.stringValue == policy.algorithm.rawValue else {
            throw AuthError(.algorithm, "header alg is not \(policy.algorithm.rawValue)")
        }
        // Step 4.
        if policy.requiresKeyID {
            guard let keyID, !keyID.isEmpty else { throw AuthError(.noKid, "header has no kid") }
            guard keyID.utf8.count <= JWTPolicy.maxKeyIDBytes else { throw AuthError(.malformed, "header kid too long") }
        }
        self.header = header
        self.keyID = keyID
        self.token = bytes
        firstDot = dots[0]
        secondDot = dots[1]
    }

    /// Verifies the payload, signature and claims (auth.md §3 steps 6–13) at wall time `now`.
    ///
    /// - Throws: `AuthError` with `.invalid`, `.signature`, `.missingClaim`, `.notYetValid`,
    ///   `.expired`, `.lifetime`, `.issuer` or `.audience`.
    public func verify(with key: JWTVerificationKey, policy: JWTPolicy, now: Double) throws(AuthError) -> JWTClaims {
        precondition(key.algorithm == policy.algorithm, "key and policy disagree on the algorithm")
        // Step 6.
        let payload = try Self.decodeObject(token, (firstDot + 1)..<secondDot, code: .invalid, what: "payload")
        // Step 7.
        try checkSignature(with: key)
        let claims = JWTClaims(payload)
        try Self.checkClaims(claims, policy: policy, now: now)
        return claims
    }

    /// Verifies only the signature and returns the decoded payload bytes (JWS without JWT
    /// semantics, RFC 7515 §5.2): for payloads that are not claims, and for the RFC test vectors.
    ///
    /// - Throws: `AuthError` with `.invalid` (payload not base64url) or `.signature`.
    public func verifiedPayload(with key: JWTVerificationKey) throws(AuthError) -> [UInt8] {
        guard key.algorithm.rawValue == header["alg"]?.stringValue else {
            throw AuthError(.algorithm, "key algorithm differs from header alg")
        }
        let payload = token.withUnsafeBytes { raw in
            Base64URL.decode(UnsafeRawBufferPointer(rebasing: raw[(firstDot + 1)..<secondDot]))
        }
        guard let payload else { throw AuthError(.invalid, "payload is not base64url") }
        try checkSignature(with: key)
        return payload
    }

    private func checkSignature(with key: JWTVerificationKey) throws(AuthError) {
        let signatureBytes = token.withUnsafeBytes { raw in
            Base64URL.decode(UnsafeRawBufferPointer(rebasing: raw[(secondDot + 1)...]))
        }
        guard let signatureBytes, !signatureBytes.isEmpty else {
            throw AuthError(.signature, "signature segment empty or not base64url")
        }
        let isValid = token.withUnsafeBytes { raw in
            key.isValidSignature(signatureBytes, signingInput: UnsafeRawBufferPointer(rebasing: raw[..<secondDot]))
        }
        guard isValid else { throw AuthError(.signature, "signature does not verify") }
    }

    static func checkClaims(_ claims: JWTClaims, policy: JWTPolicy, now: Double) throws(AuthError) {
        let leeway = policy.leeway.seconds
        // Step 8 (no allocation: this runs for every uncached token and cookie).
        if claims["exp"] == nil { throw AuthError(.missingClaim, "claim exp is missing") }
        for name in policy.requiredClaims where claims[name] == nil {
            throw AuthError(.missingClaim, "claim \(name) is missing")
        }
        if policy.issuers != nil, claims["iss"] == nil { throw AuthError(.missingClaim, "claim iss is missing") }
        if policy.audiences != nil, claims["aud"] == nil { throw AuthError(.missingClaim, "claim aud is missing") }
        // PyJWT rejects a non-string `sub`; so do we (RFC 7519 §4.1.2: StringOrURI).
        if let sub = claims["sub"], sub.stringValue == nil { throw AuthError(.invalid, "claim sub is not a string") }
        // Step 9.
        switch claims.numericDate("iat") {
        case .absent: break
        case .invalid: throw AuthError(.invalid, "claim iat is not a number")
        case .seconds(let iat): if iat > now + leeway { throw AuthError(.notYetValid, "claim iat is in the future") }
        }
        // Step 10.
        switch claims.numericDate("nbf") {
        case .absent: break
        case .invalid: throw AuthError(.invalid, "claim nbf is not a number")
        case .seconds(let nbf): if nbf > now + leeway { throw AuthError(.notYetValid, "claim nbf is in the future") }
        }
        // Step 11: equality counts as expired.
        guard case .seconds(let exp) = claims.numericDate("exp") else {
            throw AuthError(.invalid, "claim exp is not a number")
        }
        guard exp > now - leeway else { throw AuthError(.expired, "token expired") }
        if let maxLifetime = policy.maxLifetime, exp - now > maxLifetime.seconds + leeway {
            throw AuthError(.lifetime, "claim exp lies beyond the maximum token lifetime")
        }
        // Step 12.
        if let issuers = policy.issuers {
            guard let iss = claims.string("iss"), issuers.contains(iss) else {
                throw AuthError(.issuer, "claim iss is not an allowed issuer")
            }
        }
        // Step 13: a string or an array of strings; any other type is an audience error.
        if let audiences = policy.audiences {
            guard let values = claims.stringList("aud"), values.contains(where: audiences.contains) else {
                throw AuthError(.audience, "claim aud has no allowed audience")
            }
        }
    }

    /// Decoded headers by their exact segment text. A verifier sees a handful of distinct headers
    /// (one per signing key, one for our cookies), so decoding each once saves a base64 decode and a
    /// JSON parse per token. Only headers that decoded to an object are cached; the checks on
    /// them still run every time.
    private static let headerCache = Locked<[String: JSONObject]>([:])
    private static let headerCacheCapacity = 64

    private static func header(_ token: [UInt8], _ range: Range<Int>) throws(AuthError) -> JSONObject {
        // Keyed by the segment text: String hashing runs over the bytes in one pass.
        let segment = token.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
        if let cached = headerCache.withLock({ $0[segment] }) { return cached }
        let header = try decodeObject(token, range, code: .malformed, what: "header")
        headerCache.withLock { cache in
            if cache.count >= headerCacheCapacity { cache.removeAll(keepingCapacity: true) }
            cache[segment] = header
        }
        return header
    }

    private static func decodeObject(
        _ token: [UInt8],
        _ range: Range<Int>,
        code: AuthError.Code,
        what: String
    ) throws(AuthError) -> JSONObject {
        let decoded = token.withUnsafeBytes { raw in Base64URL.decode(UnsafeRawBufferPointer(rebasing: raw[range])) }
        guard let decoded else { throw AuthError(code, "\(what) is not base64url") }
        let value: JSONValue
        do {
            value = try JSONParser(options: jwtParserOptions).parse(decoded)
        } catch {
            throw AuthError(code, "\(what) is not valid JSON (\(error.code))")
        }
        guard let object = value.objectValue else { throw AuthError(code, "\(what) is not a JSON object") }
        return object
    }

    /// JOSE headers and JWT claims are small, flat objects: a low depth bound refuses nesting bombs.
    private static let jwtParserOptions: JSONParser.Options = {
        var options = JSONParser.Options()
        options.maxDepth = 32
        return options
    }()
}
