import AppNativeAuth
import AppNativeCrypto
import AppNativeJSON

// Unsafe (harness): the input is libFuzzer's buffer, valid for the `run` call and read within its
// count; buffers handed to the parsers are borrowed for their call and copied before they are kept.

/// JWT header and claims parsing with fixed policies. The first byte picks the mode:
/// - even: the rest is a compact token, checked against the Entra RS256 policy and the trusted
///   key of Tests/AppNativeAuthTests/Fixtures/vectors/jwt-attacks (its `entra-rs256` profile):
///   a header that passes has `alg` RS256, no `crit`, and a non-empty `kid` of at most 256 bytes;
///   claims that verify satisfy the policy.
/// - odd: the rest is `<header JSON> 0x00 <payload JSON>`; the harness encodes both, signs them
///   with a fixed HS256 key and verifies, so mutations reach claims parsing behind a valid
///   signature. Base64url must round-trip, the decoded header and claims must equal what
///   JSONParser makes of the same bytes, a correctly signed token must never fail its signature
///   check, and claims that verify satisfy the policy.
enum JWTHarness {
    /// `evaluationTime` of jwt-attack-cases.json.
    static let now: Double = 1_767_225_600

    static let entraPolicy = JWTPolicy(
        algorithm: .rs256,
        issuers: ["https://login.microsoftonline.com/00000000-0000-4000-8000-000000000001/v2.0"],
        audiences: ["api://gateway-test"],
        leeway: .zero,
        maxLifetime: .seconds(86_400),
        requiresKeyID: true
    )

    /// The `entra-rs256` profile's JWKS (public key only; same material as RFC 7515 A.2).
    static let trustedKey: RSAPublicKey = {
        let jwks = #"""
            {"keys":[{"kty":"RSA","use":"sig","kid":"gw-test-rsa-1","e":"AQAB","n":"ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ"}]}
            """#
        guard let key = try? JSONWebKeySet.parse(Array(jwks.utf8)).keys["gw-test-rsa-1"] else {
            fatalError("the embedded JWKS must parse")
        }
        return key
    }()

    static let issuer = "https://issuer.test"
    static let audience = "api://fuzz"
    static let signedPolicy = JWTPolicy(
        algorithm: .hs256,
        issuers: [issuer],
        audiences: [audience],
        requiredClaims: ["sub"],
        leeway: .seconds(60),
        maxLifetime: .seconds(86_400),
        requiresKeyID: false
    )

    /// The `session-hs256` profile's key (keyHex).
    static let sessionKey: HMACSHA256 = {
        let hex = Array("849b57219dae48de646d07dbb533566e976686457c1491be3a76dcea6c427188".utf8)
        func nibble(_ c: UInt8) -> UInt8 { c <= UInt8(ascii: "9") ? c - UInt8(ascii: "0") : c - UInt8(ascii: "a") + 10 }
        let bytes = stride(from: 0, to: hex.count, by: 2).map { nibble(hex[$0]) << 4 | nibble(hex[$0 + 1]) }
        guard let key = try? HMACSHA256(key: SecretBytes(bytes)) else { fatalError("the session key must load") }
        return key
    }()

    static func run(_ input: UnsafeRawBufferPointer) {
        guard let mode = unsafe input.first else { return }
        let rest = unsafe UnsafeRawBufferPointer(rebasing: input[1...])
        if mode & 1 == 0 { unsafe compactToken(rest) } else { unsafe signedToken(Array(rest)) }
    }

    static func compactToken(_ bytes: UnsafeRawBufferPointer) {
        let token = unsafe String(decoding: bytes, as: UTF8.self)
        guard let jwt = try? UnverifiedJWT(token, policy: entraPolicy) else { return }
        check(jwt.header["alg"]?.stringValue == "RS256", "a header without alg RS256 passed")
        check(jwt.header["crit"] == nil, "a header with crit passed")
        check(jwt.keyID.map { !$0.isEmpty && $0.utf8.count <= 256 } ?? false, "a header without a usable kid passed")
        if let claims = try? jwt.verify(with: .rsa(trustedKey), policy: entraPolicy, now: now) {
            checkPolicy(claims, entraPolicy, issuer: entraPolicy.issuers?.first ?? "", audience: entraPolicy.audiences?.first ?? "")
        }
    }

    static func signedToken(_ bytes: [UInt8]) {
        let parts = bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return }
        let header = Array(parts[0])
        let payload = Array(parts[1])
        for part in [header, payload] {
            check(Base64URL.decode(Base64URL.encode(part)) == part, "base64url does not round-trip \(part.count) bytes")
        }
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(payload)
        let signature = sessionKey.authenticationCode(for: Array(signingInput.utf8))
        let token = signingInput + "." + Base64URL.encode(signature)
        guard let jwt = try? UnverifiedJWT(token, policy: signedPolicy) else { return }
        check(jwt.header == (try? JSONParser().parse(header))?.objectValue, "decoded header differs from JSONParser's")
        check(jwt.header["alg"]?.stringValue == "HS256", "a header without alg HS256 passed")
        do throws(AuthError) {
            let claims = try jwt.verify(with: .hmac(sessionKey), policy: signedPolicy, now: now)
            check(claims.object == (try? JSONParser().parse(payload))?.objectValue, "decoded claims differ from JSONParser's")
            checkPolicy(claims, signedPolicy, issuer: issuer, audience: audience)
            check(claims.string("sub") != nil, "required sub missing")
        } catch {
            check(error.code != .signature, "a correctly signed token failed its signature check: \(error)")
        }
    }

    /// What verified claims must satisfy whatever the parser did.
    static func checkPolicy(_ claims: JWTClaims, _ policy: JWTPolicy, issuer: String, audience: String) {
        let leeway = Double(policy.leeway.components.seconds)
        guard case .seconds(let exp) = claims.numericDate("exp") else { failCheck("verified claims without a numeric exp") }
        check(exp > now - leeway, "an expired token verified")
        check(exp - now <= 86_400 + leeway, "a token beyond the maximum lifetime verified")
        check(claims.string("iss") == issuer, "a token with another issuer verified")
        check(claims.stringList("aud")?.contains(audience) ?? false, "a token for another audience verified")
        for name in ["nbf", "iat"] {
            if case .seconds(let time) = claims.numericDate(name) {
                check(time <= now + leeway, "a token with \(name) in the future verified")
            }
        }
    }
}

/// `precondition` that also reports its message in optimized builds (which drop it), so a crash
/// found by libFuzzer explains itself in the log.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

func failCheck(_ message: @autoclosure () -> String) -> Never {
    fatalError(message())
}
