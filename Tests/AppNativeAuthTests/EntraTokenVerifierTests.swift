@testable import AppNativeAuth
import AppNativeCore
import AppNativeTesting
import Foundation
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

/// contract/auth.md §3–§5: every check, its reason code and its status.
@Suite("Entra token verifier")
struct EntraTokenVerifierTests {
    @Test("a valid ID token yields the identity of §5")
    func validToken() async throws {
        let fixture = try await EntraFixture()
        let identity = try await fixture.verifier.verify(try fixture.token([
            "oid": "  0a0a0a0a-0000-4000-8000-000000000001 ",
            "tid": EntraFixture.tenant.uppercased(),
            "upn": " ada@corp.example ",
            "name": "  ",
        ]))
        #expect(identity.user.objectID == "0a0a0a0a-0000-4000-8000-000000000001")
        #expect(identity.user.email == "ada@example.com")
        #expect(identity.user.tenantID == EntraFixture.tenant)
        #expect(identity.user.name == nil)
        #expect(identity.user.upn == "ada@corp.example")
        #expect(identity.method == .token)
    }

    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let overrides: [String: ClaimValue]
        let removing: [String]
        let expected: AuthError.Code
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "exp missing", overrides: [:], removing: ["exp"], expected: .missingClaim),
        Row(name: "iss missing", overrides: [:], removing: ["iss"], expected: .missingClaim),
        Row(name: "aud missing", overrides: [:], removing: ["aud"], expected: .missingClaim),
        Row(name: "iat in the future", overrides: ["iat": .int(1_800_000_000 + 120)], removing: [], expected: .notYetValid),
        Row(name: "iat not numeric", overrides: ["iat": .string("soon")], removing: [], expected: .invalid),
        Row(name: "nbf in the future", overrides: ["nbf": .int(1_800_000_000 + 120)], removing: [], expected: .notYetValid),
        Row(name: "exp passed beyond leeway", overrides: ["exp": .int(1_800_000_000 - 61)], removing: [], expected: .expired),
        Row(name: "exp equal to now minus leeway", overrides: ["exp": .int(1_800_000_000 - 60)], removing: [], expected: .expired),
        Row(name: "exp a string", overrides: ["exp": .string("2030")], removing: [], expected: .invalid),
        Row(name: "issuer of another tenant", overrides: ["iss": .string("https://login.microsoftonline.com/2222aaaa-bbbb-4ccc-8ddd-eeeeffff0002/v2.0")], removing: [], expected: .issuer),
        Row(name: "v1 issuer in ID-token mode", overrides: ["iss": .string("https://sts.windows.net/1111aaaa-bbbb-4ccc-8ddd-eeeeffff0001/")], removing: [], expected: .issuer),
        Row(name: "issuer case differs", overrides: ["iss": .string("https://login.microsoftonline.com/1111AAAA-bbbb-4ccc-8ddd-eeeeffff0001/v2.0")], removing: [], expected: .issuer),
        Row(name: "wrong audience", overrides: ["aud": .string("other-app")], removing: [], expected: .audience),
        Row(name: "audience a number", overrides: ["aud": .int(42)], removing: [], expected: .audience),
        Row(name: "audience list with a number", overrides: ["aud": .list([.string(EntraFixture.audience), .int(1)])], removing: [], expected: .audience),
        Row(name: "scp in ID-token mode", overrides: ["scp": .string("access_as_user")], removing: [], expected: .accessToken),
        Row(name: "other tenant's tid", overrides: ["tid": .string("2222aaaa-bbbb-4ccc-8ddd-eeeeffff0002")], removing: [], expected: .tenant),
        Row(name: "blank tid", overrides: ["tid": .string(" ")], removing: [], expected: .tenant),
        Row(name: "oid missing", overrides: [:], removing: ["oid"], expected: .missingOID),
        Row(name: "oid a number", overrides: ["oid": .int(12345)], removing: [], expected: .missingOID),
        Row(name: "oid blank", overrides: ["oid": .string("  ")], removing: [], expected: .missingOID),
        Row(name: "no email claims", overrides: [:], removing: ["email"], expected: .missingEmail),
        Row(name: "sub not a string", overrides: ["sub": .int(7)], removing: [], expected: .invalid),
    ]

    @Test("each failed check gives its reason code", arguments: rows)
    func failedCheck(_ row: Row) async throws {
        let fixture = try await EntraFixture()
        let token = try fixture.token(row.overrides.mapValues(\.foundationValue), removing: row.removing)
        let error = await #expect(throws: AuthError.self) { try await fixture.verifier.verify(token) }
        #expect(error?.code == row.expected, "\(row.name): got \(error.map { "\($0.code)" } ?? "none")")
        #expect(error?.bearerStatus == 401)
    }

    @Test("email falls back to preferred_username, then upn")
    func emailFallback() async throws {
        let fixture = try await EntraFixture()
        let viaUsername = try await fixture.verifier.verify(try fixture.token(
            ["email": " ", "preferred_username": "pu@example.com", "upn": "upn@example.com"]
        ))
        #expect(viaUsername.user.email == "pu@example.com")
        let viaUPN = try await fixture.verifier.verify(try fixture.token(["upn": "upn@example.com"], removing: ["email"]))
        #expect(viaUPN.user.email == "upn@example.com")
    }

    @Test("leeway of 60 s on exp, nbf and iat")
    func leeway() async throws {
        let fixture = try await EntraFixture()
        _ = try await fixture.verifier.verify(try fixture.token(["exp": Int(EntraFixture.start) - 59]))
        _ = try await fixture.verifier.verify(try fixture.token(["nbf": Int(EntraFixture.start) + 60]))
        _ = try await fixture.verifier.verify(try fixture.token(["iat": Int(EntraFixture.start) + 60]))
    }

    @Test("tokens claiming to live more than 24 h are refused")
    func lifetime() async throws {
        let fixture = try await EntraFixture()
        await #expect(throws: AuthError(.lifetime, "")) {
            try await fixture.verifier.verify(try fixture.token(["exp": Int(EntraFixture.start) + 100 * 86400]))
        }
    }

    @Test("header checks come before any key work")
    func headerChecks() async throws {
        let fixture = try await EntraFixture(loadsKeys: false)
        let claims = try JSONSerialization.data(withJSONObject: fixture.claims())
        let claimsText = String(decoding: claims, as: UTF8.self)
        let cases: [(String, AuthError.Code)] = [
            (#"{"alg":"HS256","kid":"test-kid-1"}"#, .algorithm),
            (#"{"alg":"none","kid":"test-kid-1"}"#, .algorithm),
            (#"{"alg":"RS256"}"#, .noKid),
            (#"{"alg":"RS256","kid":""}"#, .noKid),
            (#"{"alg":"RS256","kid":5}"#, .malformed),
            (#"["RS256"]"#, .malformed),
            (#"{"alg":"RS256","kid":"test-kid-1","crit":["exp"]}"#, .malformed),
        ]
        for (header, expected) in cases {
            let token = try fixture.factory.token(headerJSON: header, claimsJSON: claimsText)
            let error = await #expect(throws: AuthError.self) { try await fixture.verifier.verify(token) }
            #expect(error?.code == expected, "header \(header)")
        }
        #expect(fixture.fetcher.downloads == 0)
        let empty = await #expect(throws: AuthError.self) { try await fixture.verifier.verify("") }
        #expect(empty?.code == .malformed)
        #expect(empty?.bearerStatus == 401)
    }

    @Test("a payload that is not a JSON object is invalid; a bad signature is signature")
    func payloadAndSignature() async throws {
        let fixture = try await EntraFixture()
        let notObject = try fixture.factory.token(headerJSON: #"{"alg":"RS256","kid":"test-kid-1"}"#, claimsJSON: "[1]")
        await #expect(throws: AuthError(.invalid, "")) { try await fixture.verifier.verify(notObject) }
        let valid = try fixture.token()
        let tampered = String(valid.dropLast(2)) + (valid.hasSuffix("AA") ? "BA" : "AA")
        await #expect(throws: AuthError(.signature, "")) { try await fixture.verifier.verify(tampered) }
    }

    @Test("access-token mode: issuers, audiences and the scope rule")
    func accessTokenMode() async throws {
        let fixture = try await EntraFixture(mode: .accessToken(apiClientID: "api-client", requiredScope: "access_as_user", extraAudiences: ["extra-aud"]))
        let base: [String: Any] = ["aud": "api://api-client", "scp": "User.Read access_as_user"]
        _ = try await fixture.verifier.verify(try fixture.token(base))
        _ = try await fixture.verifier.verify(try fixture.token(base.merging(["aud": "api-client"]) { $1 }))
        _ = try await fixture.verifier.verify(try fixture.token(base.merging(["aud": "extra-aud"]) { $1 }))
        _ = try await fixture.verifier.verify(try fixture.token(base.merging(
            ["iss": "https://sts.windows.net/\(EntraFixture.tenant)/", "ver": "1.0"]) { $1 }))

        let noScope = await #expect(throws: AuthError.self) {
            try await fixture.verifier.verify(try fixture.token(["aud": "api://api-client"]))
        }
        #expect(noScope?.code == .noScopeClaim)
        #expect(noScope?.bearerStatus == 401)
        let blankScope = await #expect(throws: AuthError.self) {
            try await fixture.verifier.verify(try fixture.token(["aud": "api://api-client", "scp": " "]))
        }
        #expect(blankScope?.code == .noScopeClaim)
        // Step 14 before 15–17: the scope failure wins over a missing oid and email, and is a 403.
        let wrongScope = await #expect(throws: AuthError.self) {
            try await fixture.verifier.verify(try fixture.token(["aud": "api://api-client", "scp": "User.Read"], removing: ["oid", "email"]))
        }
        #expect(wrongScope?.code == .scope)
        #expect(wrongScope?.bearerStatus == 403)
        let prefixScope = await #expect(throws: AuthError.self) {
            try await fixture.verifier.verify(try fixture.token(["aud": "api://api-client", "scp": "access_as_user_2"]))
        }
        #expect(prefixScope?.code == .scope)
    }

    @Test("repeat verifications hit the token cache; expiry is checked on every hit")
    func tokenCache() async throws {
        let fixture = try await EntraFixture()
        let token = try fixture.token(["exp": Int(EntraFixture.start) + 100])
        let first = try await fixture.verifier.verify(token)
        guard case .verified(let second) = fixture.verifier.verifyImmediately(token) else {
            Issue.record("cached token not verified immediately")
            return
        }
        #expect(first == second)
        // The token's leeway (60 s), not the session cookie's 30 s: 45 s past exp still verified.
        fixture.time.advance(by: .seconds(100 + 45))
        guard case .verified = fixture.verifier.verifyImmediately(token) else {
            Issue.record("cached token refused inside the token leeway")
            return
        }
        fixture.time.advance(by: .seconds(15))
        guard case .failed(let error) = fixture.verifier.verifyImmediately(token) else {
            Issue.record("expired cached token accepted")
            return
        }
        #expect(error.code == .expired)
    }

    @Test("the token cache serves exactly the cached token: a changed payload with its signature is verified, and fails")
    func tokenCacheKeyIsTheWholeToken() async throws {
        let fixture = try await EntraFixture()
        let token = try fixture.token()
        _ = try await fixture.verifier.verify(token)
        // Another payload under the cached token's header and signature: same length, same tail
        // (the part the cache hashes), one byte different in the middle.
        let parts = token.split(separator: ".").map(String.init)
        var payload = Array(parts[1].utf8)
        payload[payload.count / 2] = payload[payload.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let forged = parts[0] + "." + String(decoding: payload, as: UTF8.self) + "." + parts[2]
        #expect(forged.utf8.count == token.utf8.count && forged.suffix(32) == token.suffix(32))
        guard case .failed = fixture.verifier.verifyImmediately(forged) else {
            Issue.record("a token sharing the cached token's signature was accepted")
            return
        }
        let hits = fixture.tokenCacheHits
        guard case .verified = fixture.verifier.verifyImmediately(token) else {
            Issue.record("the cached token itself was not served")
            return
        }
        #expect(fixture.tokenCacheHits == hits + 1)
    }

    @Test("tokens longer than 4 KiB are cached too (by digest)")
    func longTokensAreCached() async throws {
        let fixture = try await EntraFixture()
        let token = try fixture.token(["padding": String(repeating: "x", count: 5000)])
        #expect(token.utf8.count > CredentialKey.exactLimit)
        _ = try await fixture.verifier.verify(token)
        guard case .verified = fixture.verifier.verifyImmediately(token) else {
            Issue.record("long token not verified")
            return
        }
        #expect(fixture.tokenCacheHits == 1)
    }

    @Test("credential keys: equal exactly when the credentials are, whatever their tails")
    func credentialKeys() {
        let base = String(repeating: "a", count: 100) + "tail"
        #expect(CredentialKey(base) == CredentialKey(String(repeating: "a", count: 100) + "tail"))
        #expect(CredentialKey(base).hashValue == CredentialKey(String(repeating: "a", count: 100) + "tail").hashValue)
        #expect(CredentialKey(base) != CredentialKey("b" + String(repeating: "a", count: 99) + "tail"))
        let long = String(repeating: "z", count: CredentialKey.exactLimit + 1)
        #expect(CredentialKey(long) == CredentialKey(String(repeating: "z", count: CredentialKey.exactLimit + 1)))
        #expect(CredentialKey(long) != CredentialKey(String(long.dropLast()) + "y"))
        #expect(CredentialKey(String(long.dropLast())) != CredentialKey(long))
    }

    @Test("a credential key made from bytes equals and hashes as the string key of the same bytes")
    func bytesCredentialKeys() {
        for credential in ["", "a", String(repeating: "a", count: 100) + "tail", String(repeating: "q", count: 4096),
                           String(repeating: "z", count: CredentialKey.exactLimit + 1)] {
            var bytes = Array(credential.utf8)
            let owned = CredentialKey(credential)
            let fromBytes = unsafe bytes.withUnsafeBytes { unsafe CredentialKey(utf8: $0) }
            #expect(fromBytes == owned && owned == fromBytes, "\(credential.utf8.count) bytes")
            #expect(fromBytes.hashValue == owned.hashValue, "\(credential.utf8.count) bytes")
            guard !bytes.isEmpty else { continue }
            bytes[bytes.count / 2] ^= 1
            let changed = unsafe bytes.withUnsafeBytes { unsafe CredentialKey(utf8: $0) }
            #expect(changed != owned, "\(credential.utf8.count) bytes, one changed")
        }
    }

    @Test("a token given as bytes gets the verdicts of the same token as a string")
    func verificationFromBytes() async throws {
        let fixture = try await EntraFixture()
        let token = try fixture.token()
        func verdict(_ text: String) -> String {
            var text = text
            let result = text.withUTF8 { unsafe fixture.verifier.verifyImmediately(tokenBytes: UnsafeRawBufferPointer($0)) }
            switch result {
            case .verified(let identity): return "verified \(identity.user.objectID)"
            case .failed(let error): return "failed \(error.code)"
            case .mustWait: return "wait"
            }
        }
        // The key set loaded through another token; then this one uncached (verified from the
        // bytes' string), then a cache hit without one.
        _ = try await fixture.verifier.verify(try fixture.token(["nonce": "warm-up"]))
        #expect(verdict(token).hasPrefix("verified"))
        let hits = fixture.tokenCacheHits
        #expect(verdict(token).hasPrefix("verified"))
        #expect(fixture.tokenCacheHits == hits + 1)
        #expect(verdict("not.a.token") == "failed malformed")
        // An unknown kid asks to wait, as the string entry point does.
        let other = TestTokenFactory(key: fixture.factory.key, keyID: "unknown-kid")
        let unknown = try other.token(claims: fixture.claims([:], removing: []), kid: nil)
        #expect(verdict(unknown) == { () -> String in
            switch fixture.verifier.verifyImmediately(unknown) {
            case .mustWait: return "wait"
            case .failed(let error): return "failed \(error.code)"
            case .verified: return "verified"
            }
        }())
        // Expired while cached: the hit checks expiry and drops the entry.
        fixture.time.advance(by: .seconds(3 * 3600))
        #expect(verdict(token) == "failed expired")
    }

    @Test("a token cache hit never outlives the key that verified it")
    func tokenCacheDiesWithKey() async throws {
        let fixture = try await EntraFixture()
        let token = try fixture.token()
        _ = try await fixture.verifier.verify(token)
        // The key set rotates to a key with another kid; the old kid is gone after the reload.
        let rotated = TestTokenFactory(key: fixture.factory.key, keyID: "rotated-kid")
        fixture.fetcher.set(.serve(rotated.jwksDocument))
        fixture.time.advance(by: .seconds(3601))
        _ = fixture.verifier.verifyImmediately(try fixture.token())  // stale hit starts the background reload
        #expect(await eventually { fixture.verifier.keys.keyIDs == ["rotated-kid"] })
        let error = await #expect(throws: AuthError.self) { try await fixture.verifier.verify(token) }
        #expect(error?.code == .unknownKid)
    }

    @Test("reason codes and logs never contain the token")
    func noTokenInLogsOrErrors() async throws {
        let fixture = try await EntraFixture()
        let token = try fixture.token(["aud": "other"])
        do {
            _ = try await fixture.verifier.verify(token)
        } catch {
            #expect(!"\(error)".contains(token.prefix(40)))
            #expect(!error.reason.contains(String(token.split(separator: ".")[1].prefix(20))))
        }
        for line in fixture.logs.renderedLines {
            #expect(!line.contains(String(token.prefix(40))))
        }
    }
}

/// A claim value written in a test table (Sendable, unlike `Any`).
enum ClaimValue: Sendable {
    case int(Int)
    case string(String)
    case list([ClaimValue])

    var foundationValue: Any {
        switch self {
        case .int(let value): value
        case .string(let value): value
        case .list(let values): values.map(\.foundationValue)
        }
    }
}
