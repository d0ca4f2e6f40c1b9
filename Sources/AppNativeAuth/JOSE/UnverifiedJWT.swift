public import AppNativeJSON
import AppNativeCore
import Glibc

// Unsafe: only at two C calls, each borrowing the token's bytes with their count for the call:
// memchr searches `bytes.count - start` bytes from `start < bytes.count`, and the decoded
// signature and the signing input go to the EVP verifier. Everything else reads the token through
// its UTF-8 `Span`, and every segment is a range between the dots found inside it.

/// A compact JWS whose header has been checked but whose signature has not (yet).
///
/// Splitting verification in two lets the key lookup, which may have to wait for a JWKS
/// reload, sit between the header checks (contract/auth.md §3 steps 1–4) and the rest (steps 6–13).
public struct UnverifiedJWT: Sendable {
    /// The decoded protected header.
    public let header: JSONObject
    /// The header's `kid`, when present (a string; other types were rejected).
    public let keyID: String?
    /// The token (contiguous UTF-8); the signing input is everything before the second dot.
    private let token: String
    private let firstDot: Int
    private let secondDot: Int

    /// Runs the header checks of `policy` on `token`.
    ///
    /// - Throws: `AuthError` with `.malformed` (size, shape, header JSON, `kid` type, `crit`),
    ///   `.algorithm` or `.noKid`.
    public init(_ token: String, policy: JWTPolicy) throws(AuthError) {
        // The token's own storage is read in place (no copy of up to 16 KiB per token).
        var text = token
        text.makeContiguousUTF8()
        let shape = Self.shape(of: text.utf8.span)
        // Step 1: refuse oversized tokens before decoding anything (RFC 8725 §3.3 style resource bound).
        guard shape.count > 0, shape.count <= policy.maxTokenBytes else {
            throw AuthError(.malformed, "token empty or longer than \(policy.maxTokenBytes) bytes")
        }
        // Step 2: exactly three segments (RFC 7515 §7.1); five would be a JWE.
        guard shape.first >= 0, shape.second >= 0 else {
            throw AuthError(.malformed, "not three dot-separated segments")
        }
        let entry = try Self.header(text.utf8.span.extracting(0..<shape.first))
        // RFC 7515 §4.1.11: a recipient must reject `crit` extensions it does not understand; we understand none.
        if entry.hasCritical { throw AuthError(.malformed, "header lists critical extensions") }
        if entry.keyIDIsNotString { throw AuthError(.malformed, "header kid is not a string") }
        let keyID = entry.keyID
        // Step 3: the algorithm is pinned before any key work (rejects none, HS/RS confusion).
        guard entry.algorithm == policy.algorithm.rawValue else {
            throw AuthError(.algorithm, "header alg is not \(policy.algorithm.rawValue)")
        }
        // Step 4.
        if policy.requiresKeyID {
            guard let keyID, !keyID.isEmpty else { throw AuthError(.noKid, "header has no kid") }
            guard keyID.utf8.count <= JWTPolicy.maxKeyIDBytes else { throw AuthError(.malformed, "header kid too long") }
        }
        self.header = entry.header
        self.keyID = keyID
        self.token = text
        firstDot = shape.first
        secondDot = shape.second
    }

    /// Verifies the payload, signature and claims (contract/auth.md §3 steps 6–13) at wall time `now`.
    ///
    /// - Throws: `AuthError` with `.invalid`, `.signature`, `.missingClaim`, `.notYetValid`,
    ///   `.expired`, `.lifetime`, `.issuer` or `.audience`.
    public func verify(with key: JWTVerificationKey, policy: JWTPolicy, now: Double) throws(AuthError) -> JWTClaims {
        precondition(key.algorithm == policy.algorithm, "key and policy disagree on the algorithm")
        // Step 6.
        let claims = try Self.decodeClaims(token.utf8.span.extracting((firstDot + 1)..<secondDot))
        // Step 7.
        try checkSignature(with: key)
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
        guard let payload = Base64URL.decode(token.utf8.span.extracting((firstDot + 1)..<secondDot)) else { throw AuthError(.invalid, "payload is not base64url") }
        try checkSignature(with: key)
        return payload
    }

    private func checkSignature(with key: JWTVerificationKey) throws(AuthError) {
        let bytes = token.utf8.span
        let segment = bytes.extracting((secondDot + 1)...)
        let signingInput = bytes.extracting(..<secondDot)
        guard let count = Base64URL.decodedCount(segment.count), count > 0 else {
            throw AuthError(.signature, "signature segment empty or not base64url")
        }
        let outcome: Bool?
        if count <= Self.inlineSignatureBytes {
            // Decoded on the stack: a signature is at most 1 KiB (RSA-8192).
            var storage = InlineArray<1024, UInt8>(repeating: 0)
            var output = storage.mutableSpan
            if Base64URL.decode(segment, into: &output) {
                outcome = Self.isValid(storage.span.extracting(0..<count), signingInput: signingInput, key: key)
            } else {
                outcome = nil
            }
        } else {
            outcome = Base64URL.decode(segment).map { Self.isValid($0.span, signingInput: signingInput, key: key) }
        }
        guard let isValid = outcome else {
            throw AuthError(.signature, "signature segment empty or not base64url")
        }
        guard isValid else { throw AuthError(.signature, "signature does not verify") }
    }

    /// The size of the stack storage a signature is decoded into; a longer one is decoded into an array.
    private static let inlineSignatureBytes = 1024

    private static func isValid(_ signature: Span<UInt8>, signingInput: Span<UInt8>, key: JWTVerificationKey) -> Bool {
        unsafe signature.withUnsafeBytes { signature in
            unsafe signingInput.withUnsafeBytes { signingInput in unsafe key.isValidSignature(signature, signingInput: signingInput) }
        }
    }

    /// The token's length and the offsets of its first two dots; `-1` for a dot that is missing,
    /// and both `-1` when there is a third.
    private static func shape(of bytes: Span<UInt8>) -> (count: Int, first: Int, second: Int) {
        // memchr, not a loop over the span: the token is up to 16 KiB and scanned for three dots,
        // and a byte loop costs more than the decoding (docs/memory-safety.md).
        unsafe bytes.withUnsafeBufferPointer { bytes -> (count: Int, first: Int, second: Int) in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return (0, -1, -1) }
            func dot(after start: Int) -> Int {
                guard start < bytes.count, let found = unsafe memchr(base + start, Int32(UInt8(ascii: ".")), bytes.count - start)
                else { return -1 }
                return unsafe base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            }
            let first = dot(after: 0)
            let second = first < 0 ? -1 : dot(after: first + 1)
            if second >= 0, dot(after: second + 1) >= 0 { return (bytes.count, -1, -1) }
            return (bytes.count, first, second)
        }
    }

    static func checkClaims(_ claims: JWTClaims, policy: JWTPolicy, now: Double) throws(AuthError) {
        let leeway = policy.leeway.seconds
        // Step 8 (no allocation: this runs for every uncached token and cookie).
        if !claims.contains("exp") { throw AuthError(.missingClaim, "claim exp is missing") }
        for name in policy.requiredClaims where !claims.contains(name) {
            throw AuthError(.missingClaim, "claim \(name) is missing")
        }
        if policy.issuers != nil, !claims.contains("iss") { throw AuthError(.missingClaim, "claim iss is missing") }
        if policy.audiences != nil, !claims.contains("aud") { throw AuthError(.missingClaim, "claim aud is missing") }
        // PyJWT rejects a non-string `sub`; so do we (RFC 7519 §4.1.2: StringOrURI).
        if claims.contains("sub"), !claims.isString("sub") { throw AuthError(.invalid, "claim sub is not a string") }
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
            guard claims.string("iss", isOneOf: issuers) == true else {
                throw AuthError(.issuer, "claim iss is not an allowed issuer")
            }
        }
        // Step 13: a string or an array of strings; any other type is an audience error.
        if let audiences = policy.audiences {
            // The usual single string is compared in place; an array goes through the list.
            let matches =
                claims.string("aud", isOneOf: audiences)
                ?? claims.stringList("aud").map { values in
                    values.contains { value in
                        var value = value
                        return value.withUTF8 { unsafe JWTClaims.isOne(of: audiences, UnsafeRawBufferPointer($0)) }
                    }
                }
            guard matches == true else { throw AuthError(.audience, "claim aud has no allowed audience") }
        }
    }

    /// A decoded header and what the header checks read from it. A class: taking one from the
    /// cache for every token is then one reference count, not one per field.
    private final class HeaderEntry: Sendable {
        let segment: [UInt8]
        let header: JSONObject
        let hasCritical: Bool
        let keyID: String?
        let keyIDIsNotString: Bool
        let algorithm: String?

        init(segment: [UInt8], header: JSONObject) {
            self.segment = segment
            self.header = header
            hasCritical = header.contains("crit")
            let kid = header["kid"]
            keyID = kid?.stringValue
            keyIDIsNotString = kid != nil && keyID == nil
            algorithm = header["alg"]?.stringValue
        }

        func matches(_ bytes: Span<UInt8>) -> Bool {
            let segment = self.segment
            let own = segment.span
            guard own.count == bytes.count else { return false }
            for index in own.indices where own[index] != bytes[index] { return false }
            return true
        }
    }

    /// Decoded headers by their exact segment bytes. A verifier sees a handful of distinct headers
    /// (one per signing key, one for our cookies), so decoding each once saves a base64 decode and a
    /// JSON parse per token; a short list compared byte by byte is cheaper than hashing the
    /// segment. Only headers that decoded to an object are cached; the checks on them still run
    /// every time.
    private static let headerCache = Locked<[HeaderEntry]>([])
    private static let headerCacheCapacity = 64

    private static func header(_ segment: Span<UInt8>) throws(AuthError) -> HeaderEntry {
        let cached = headerCache.withLock { entries -> HeaderEntry? in
            for entry in entries where entry.matches(segment) { return entry }
            return nil
        }
        if let cached { return cached }
        let copy = [UInt8](capacity: segment.count) { output in
            for index in segment.indices { output.append(segment[index]) }
        }
        let entry = HeaderEntry(segment: copy, header: try decodeObject(segment, code: .malformed, what: "header"))
        headerCache.withLock { entries in
            if entries.count >= headerCacheCapacity { entries.removeAll(keepingCapacity: true) }
            entries.append(entry)
        }
        return entry
    }

    private static func decodeObject(
        _ segment: Span<UInt8>,
        code: AuthError.Code,
        what: String
    ) throws(AuthError) -> JSONObject {
        // Only a header the cache does not hold is decoded, so an array here costs nothing per token.
        guard let decoded = Base64URL.decode(segment) else { throw AuthError(code, "\(what) is not base64url") }
        let value: JSONValue
        do throws(JSONError) {
            value = try JSONParser(options: jwtParserOptions).parse(decoded)
        } catch {
            throw AuthError(code, "\(what) is not valid JSON (\(error.code))")
        }
        guard let object = value.objectValue else { throw AuthError(code, "\(what) is not a JSON object") }
        return object
    }

    /// The payload as a claims view: decoded into the array the view keeps, then validated.
    private static func decodeClaims(_ segment: Span<UInt8>) throws(AuthError) -> JWTClaims {
        guard let decoded = Base64URL.decode(segment) else { throw AuthError(.invalid, "payload is not base64url") }
        let view: JSONObjectView?
        do throws(JSONError) {
            view = try JSONObjectView.parse(decoded, options: jwtParserOptions)
        } catch {
            throw AuthError(.invalid, "payload is not valid JSON (\(error.code))")
        }
        guard let view else { throw AuthError(.invalid, "payload is not a JSON object") }
        return JWTClaims(view)
    }

    /// JOSE headers and JWT claims are small, flat objects: a low depth bound refuses nesting bombs.
    private static let jwtParserOptions: JSONParser.Options = {
        var options = JSONParser.Options()
        options.maxDepth = 32
        return options
    }()
}
