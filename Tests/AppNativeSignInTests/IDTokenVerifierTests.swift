import AppNativeAuth
import AppNativeCore
import AppNativeCrypto
import AppNativeJSON
import AppNativeSignIn
import AppNativeTesting
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

/// A key set served from memory.
struct StaticKeySet: JWKSFetching {
    let document: String
    func fetchDocument() async throws -> [UInt8] { Array(document.utf8) }
}

@Suite("Sign-in ID token verifier")
struct IDTokenVerifierTests {
    static let key = try! RSAPrivateKey.generate()
    static let otherKey = try! RSAPrivateKey.generate()
    static let issuer = "https://login.example/11111111-2222-3333-4444-555555555555/v2.0"
    static let tenant = "11111111-2222-3333-4444-555555555555"
    static let clientID = "web-client"
    let time = ManualTimeSource(wallSeconds: 1_700_000_000)
    let nonce = Secret("the-nonce-of-this-attempt")

    static func jwk(_ key: RSAPrivateKey, kid: String) -> String {
        "{\"kty\":\"RSA\",\"use\":\"sig\",\"kid\":\"\(kid)\",\"n\":\"\(Base64URL.encode(key.publicKey.modulus))\",\"e\":\"\(Base64URL.encode(key.publicKey.exponent))\"}"
    }

    func verifier(keys document: String) async -> IDTokenVerifier {
        let cache = JWKSCache(fetcher: StaticKeySet(document: document), time: time, metrics: MetricsRegistry())
        await cache.refresh()
        return IDTokenVerifier(issuer: Self.issuer, clientID: Self.clientID, tenantID: Self.tenant, keys: cache, time: time)
    }

    func claims(_ changes: [String: JSONValue?] = [:]) -> JSONObject {
        var claims: JSONObject = [
            "iss": .string(Self.issuer), "aud": .string(Self.clientID), "tid": .string(Self.tenant), "oid": .string("user-1"),
            "email": .string("a@example.com"), "name": .string("A"), "nonce": .string(nonce.revealed),
            "iat": .number(JSONNumber(Int64(time.wallSeconds))), "exp": .number(JSONNumber(Int64(time.wallSeconds) + 3600)),
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    func token(_ claims: JSONObject, key: RSAPrivateKey = key, kid: String? = "k1") throws -> Secret<String> {
        if let kid { return Secret(try JWTSigner.sign(claims, with: .rsa(key, keyID: kid))) }
        let input = Base64URL.encode("{\"alg\":\"RS256\",\"typ\":\"JWT\"}") + "." + Base64URL.encode(JSONSerializer.serialize(.object(claims)))
        let signature = unsafe try Array(input.utf8).withUnsafeBytes { unsafe try key.pkcs1v15SHA256Signature(for: $0) }
        return Secret(input + "." + Base64URL.encode(signature))
    }

    static var oneKey: String { "{\"keys\":[\(jwk(key, kid: "k1"))]}" }
    static var twoKeys: String { "{\"keys\":[\(jwk(key, kid: "k1")),\(jwk(otherKey, kid: "k2"))]}" }

    @Test func validTokenGivesTheIdentity() async throws {
        let identity = try await verifier(keys: Self.oneKey).verify(try token(claims()), nonce: nonce)
        #expect(identity.user.objectID == "user-1")
        #expect(identity.user.email == "a@example.com")
        #expect(identity.user.tenantID == Self.tenant)
        #expect(identity.user.name == "A")
    }

    @Test("OpenID Connect Core §3.1.3.7: aud holds the client and no untrusted audience; azp required with several, the client when present")
    func audienceAndAuthorizedParty() async throws {
        let verifier = await verifier(keys: Self.oneKey)
        // An array holding only the client is the client's token.
        let single = try token(claims(["aud": .array([.string(Self.clientID)])]))
        #expect(try await verifier.verify(single, nonce: nonce).user.objectID == "user-1")
        let withParty = try token(claims(["aud": .array([.string(Self.clientID), .string(Self.clientID)]), "azp": .string(Self.clientID)]))
        #expect(try await verifier.verify(withParty, nonce: nonce).user.objectID == "user-1")
        #expect(try await verifier.verify(try token(claims(["azp": .string(Self.clientID)])), nonce: nonce).user.objectID == "user-1")
        // Another audience beside the client is not trusted, with or without azp.
        await #expect(throws: SignInFailure.tokenInvalid(check: "audience_untrusted")) {
            try await verifier.verify(try token(claims(["aud": .array([.string("other"), .string(Self.clientID)])])), nonce: nonce)
        }
        await #expect(throws: SignInFailure.tokenInvalid(check: "audience_untrusted")) {
            try await verifier.verify(
                try token(claims(["aud": .array([.string(Self.clientID), .string("other")]), "azp": .string(Self.clientID)])), nonce: nonce)
        }
        // Several audiences without azp.
        await #expect(throws: SignInFailure.tokenInvalid(check: "azp_missing")) {
            try await verifier.verify(try token(claims(["aud": .array([.string(Self.clientID), .string(Self.clientID)])])), nonce: nonce)
        }
        await #expect(throws: SignInFailure.tokenInvalid(check: "audience")) {
            try await verifier.verify(try token(claims(["aud": .array([.string("other")])])), nonce: nonce)
        }
        await #expect(throws: SignInFailure.tokenInvalid(check: "audience")) {
            try await verifier.verify(try token(claims(["aud": .string("other")])), nonce: nonce)
        }
        await #expect(throws: SignInFailure.tokenInvalid(check: "azp")) {
            try await verifier.verify(try token(claims(["azp": .string("other")])), nonce: nonce)
        }
        await #expect(throws: SignInFailure.tokenInvalid(check: "azp")) {
            try await verifier.verify(try token(claims(["azp": .number(JSONNumber(1))])), nonce: nonce)
        }
    }

    @Test func noKidWithOneKeyIsAccepted() async throws {
        let identity = try await verifier(keys: Self.oneKey).verify(try token(claims(), kid: nil), nonce: nonce)
        #expect(identity.user.objectID == "user-1")
    }

    @Test func noKidWithSeveralKeysIsRefused() async throws {
        await #expect(throws: SignInFailure.tokenInvalid(check: "no_kid")) {
            try await verifier(keys: Self.twoKeys).verify(try token(claims(), kid: nil), nonce: nonce)
        }
    }

    @Test func kidSelectsAmongSeveral() async throws {
        let verifier = await verifier(keys: Self.twoKeys)
        #expect(try await verifier.verify(try token(claims(), key: Self.otherKey, kid: "k2"), nonce: nonce).user.objectID == "user-1")
        await #expect(throws: SignInFailure.tokenInvalid(check: "signature")) {
            try await verifier.verify(try token(claims(), key: Self.otherKey, kid: "k1"), nonce: nonce)
        }
    }

    @Test func nonceMustMatch() async throws {
        let verifier = await verifier(keys: Self.oneKey)
        await #expect(throws: SignInFailure.tokenInvalid(check: "nonce")) {
            try await verifier.verify(try token(claims(["nonce": .string("another")])), nonce: nonce)
        }
        await #expect(throws: SignInFailure.tokenInvalid(check: "missing_claim")) {
            try await verifier.verify(try token(claims(["nonce": nil])), nonce: nonce)
        }
    }

    @Test func issuerIsTheDiscoveryIssuer() async throws {
        await #expect(throws: SignInFailure.tokenInvalid(check: "issuer")) {
            try await verifier(keys: Self.oneKey).verify(
                try token(claims(["iss": .string("https://login.example/other/v2.0")])), nonce: nonce)
        }
    }

    @Test func tenantIsChecked() async throws {
        let verifier = await verifier(keys: Self.oneKey)
        await #expect(throws: SignInFailure.wrongTenant) {
            try await verifier.verify(try token(claims(["tid": .string("99999999-2222-3333-4444-555555555555")])), nonce: nonce)
        }
        await #expect(throws: SignInFailure.wrongTenant) {
            try await verifier.verify(try token(claims(["tid": nil])), nonce: nonce)
        }
        // The tenant compares without case, as on the Bearer path.
        #expect(try await verifier.verify(try token(claims(["tid": .string(Self.tenant.uppercased())])), nonce: nonce).user.tenantID == Self.tenant)
    }

    @Test func timeChecks() async throws {
        let verifier = await verifier(keys: Self.oneKey)
        let now = Int64(time.wallSeconds)
        await #expect(throws: SignInFailure.tokenInvalid(check: "expired")) {
            try await verifier.verify(try token(claims(["exp": .number(JSONNumber(now - 120))])), nonce: nonce)
        }
        await #expect(throws: SignInFailure.tokenInvalid(check: "not_yet_valid")) {
            try await verifier.verify(try token(claims(["nbf": .number(JSONNumber(now + 600))])), nonce: nonce)
        }
        await #expect(throws: SignInFailure.tokenInvalid(check: "lifetime")) {
            try await verifier.verify(try token(claims(["exp": .number(JSONNumber(now + 200_000))])), nonce: nonce)
        }
    }

    @Test func identityClaimsAreRequired() async throws {
        let verifier = await verifier(keys: Self.oneKey)
        await #expect(throws: SignInFailure.tokenInvalid(check: "missing_oid")) {
            try await verifier.verify(try token(claims(["oid": nil])), nonce: nonce)
        }
        await #expect(throws: SignInFailure.tokenInvalid(check: "missing_email")) {
            try await verifier.verify(try token(claims(["email": nil])), nonce: nonce)
        }
    }

    @Test func algorithmAndShape() async throws {
        let verifier = await verifier(keys: Self.oneKey)
        let hmac = try HMACSHA256(key: SecretBytes(utf8: String(repeating: "k", count: 32)))
        await #expect(throws: SignInFailure.tokenInvalid(check: "algorithm")) {
            try await verifier.verify(Secret(try JWTSigner.sign(claims(), with: .hmac(hmac))), nonce: nonce)
        }
        await #expect(throws: SignInFailure.tokenInvalid(check: "malformed")) {
            try await verifier.verify(Secret("not.a-token"), nonce: nonce)
        }
        await #expect(throws: SignInFailure.tokenInvalid(check: "unknown_kid")) {
            try await verifier.verify(try token(claims(), kid: "k9"), nonce: nonce)
        }
    }

    @Test func keysNotLoadedIsNotReady() async throws {
        struct Failing: JWKSFetching {
            struct Down: Error {}
            func fetchDocument() async throws -> [UInt8] { throw Down() }
        }
        let cache = JWKSCache(fetcher: Failing(), time: time, metrics: MetricsRegistry())
        let verifier = IDTokenVerifier(issuer: Self.issuer, clientID: Self.clientID, tenantID: Self.tenant, keys: cache, time: time)
        await #expect(throws: SignInFailure.notReady) { try await verifier.verify(try token(claims()), nonce: nonce) }
    }
}
