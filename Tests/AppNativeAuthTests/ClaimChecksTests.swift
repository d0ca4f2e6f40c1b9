@testable import AppNativeAuth
import AppNativeCrypto
import AppNativeJSON
import Testing

/// The issuer and audience checks compare the claim's bytes in place (no `String` built): they
/// must read escaped strings, lists and wrong types exactly as the string comparison did, and
/// compare without Unicode normalisation (RFC 7519 §2, StringOrURI).
@Suite(.timeLimit(.minutes(1)))
struct ClaimChecksTests {
    static let now = 1_800_000_000.0
    static let issuer = "https://issuer.example/tenant/v2.0"
    static let key = try! HMACSHA256(key: SecretBytes(utf8: "claim-checks-secret-claim-checks-secret"))
    static let policy = JWTPolicy(
        algorithm: .hs256, issuers: ["https://other.example/", issuer], audiences: ["app-é", "app"],
        leeway: .seconds(60), maxLifetime: .seconds(86400), requiresKeyID: false)

    /// An HS256 token over exactly `payload` (the JSON text as given, escapes and all).
    static func token(_ payload: String) -> String {
        let input = Base64URL.encode(#"{"alg":"HS256","typ":"JWT"}"#) + "." + Base64URL.encode(payload)
        return input + "." + Base64URL.encode(key.authenticationCode(for: Array(input.utf8)))
    }

    static func verdict(iss: String, aud: String) -> AuthError.Code? {
        let payload = #"{"iss":\#(iss),"aud":\#(aud),"sub":"s","iat":1800000000,"exp":1800003600}"#
        do throws(AuthError) {
            let jwt = try UnverifiedJWT(token(payload), policy: policy)
            _ = try jwt.verify(with: .hmac(key), policy: policy, now: now)
            return nil
        } catch {
            return error.code
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let iss: String
        let aud: String
        let expected: AuthError.Code?
        var testDescription: String { "iss \(iss), aud \(aud)" }
    }

    static let cases: [Case] = [
        Case(iss: #""https://issuer.example/tenant/v2.0""#, aud: #""app""#, expected: nil),
        Case(iss: #""https:\/\/issuer.example\/tenant\/v2.0""#, aud: #""app""#, expected: nil),
        Case(iss: #""https://other.example/""#, aud: #""\u0061pp""#, expected: nil),
        Case(iss: #""https://issuer.example/tenant/v2.0/""#, aud: #""app""#, expected: .issuer),
        Case(iss: #""https://issuer.example/tenant/v2.""#, aud: #""app""#, expected: .issuer),
        Case(iss: #""""#, aud: #""app""#, expected: .issuer),
        Case(iss: "42", aud: #""app""#, expected: .issuer),
        Case(iss: #"["https://other.example/"]"#, aud: #""app""#, expected: .issuer),
        Case(iss: #""https://other.example/""#, aud: #""app-é""#, expected: nil),
        Case(iss: #""https://other.example/""#, aud: #""app-\u00e9""#, expected: nil),
        // The same text with e + U+0301: canonically equivalent, a different StringOrURI.
        Case(iss: #""https://other.example/""#, aud: "\"app-e\u{301}\"", expected: .audience),
        Case(iss: #""https://other.example/""#, aud: #""APP""#, expected: .audience),
        Case(iss: #""https://other.example/""#, aud: #"["x","app"]"#, expected: nil),
        Case(iss: #""https://other.example/""#, aud: #"["x","y"]"#, expected: .audience),
        Case(iss: #""https://other.example/""#, aud: #"[]"#, expected: .audience),
        Case(iss: #""https://other.example/""#, aud: #"["app",7]"#, expected: .audience),
        Case(iss: #""https://other.example/""#, aud: "null", expected: .audience),
    ]

    @Test("issuer and audience verdicts", arguments: cases)
    func verdicts(_ testCase: Case) {
        #expect(Self.verdict(iss: testCase.iss, aud: testCase.aud) == testCase.expected)
    }

    @Test func numericDatesReadInPlaceMatchTheirValues() throws {
        let payload = #"{"exp":1800003600,"nbf":1.8e9,"iat":-5,"big":123456789012345678,"s":"1"}"#
        let parsed = JWTClaims(try #require(try JSONObjectView.parse(Array(payload.utf8))))
        #expect(parsed.numericDate("exp") == .seconds(1_800_003_600))
        #expect(parsed.numericDate("nbf") == .seconds(1_800_000_000))
        #expect(parsed.numericDate("iat") == .seconds(-5))
        #expect(parsed.numericDate("big") == .seconds(Double("123456789012345678")!), "longer than 15 digits: parsed as text")
        #expect(parsed.numericDate("s") == .invalid)
        #expect(parsed.numericDate("missing") == .absent)
        #expect(parsed.isString("s") && !parsed.isString("exp") && !parsed.isString("missing"))
        #expect(parsed.string("s", isOneOf: ["0", "1"]) == true)
        #expect(parsed.string("s", isOneOf: []) == false)
        #expect(parsed.string("exp", isOneOf: ["1800003600"]) == nil)
    }
}

