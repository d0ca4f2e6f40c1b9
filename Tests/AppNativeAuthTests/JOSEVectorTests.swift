import AppNativeAuth
import AppNativeJSON
import AppNativeTesting
import Foundation
import Testing

/// RFC 7515 Appendix A and RFC 7520 §4 examples, and Wycheproof's whole-JWS tests.
@Suite("JWS vectors")
struct JOSEVectorTests {
    @Test("RFC 7515 / RFC 7520 examples and their derived negatives")
    func rfcExamples() throws {
        let root = try AuthVectors.object("vectors/jose/rfc7515-rfc7520-jws.json")
        let keys = root["keys"] as! [String: [String: Any]]
        let cases = root["cases"] as! [[String: Any]]
        #expect(cases.count == 29)
        for testCase in cases {
            let id = testCase["id"] as! String
            let verifyWith = testCase["verifyWith"] as! [String: String]
            let expected = testCase["expected"] as! String
            guard verifyWith["alg"] != "ES512" else {
                // P-521/ES512 is not implemented: only RS256, HS256 and ES256 exist here. Pinned: rejected.
                #expect(throws: AuthError.self, "\(id)") { try AuthVectors.key(fromJWK: keys[verifyWith["key"]!]!["publicJwk"] as! [String: Any]) }
                continue
            }
            let keyEntry = keys[verifyWith["key"]!]!
            let jwk = (keyEntry["publicJwk"] ?? keyEntry["privateJwk"]) as! [String: Any]
            let key = try AuthVectors.key(fromJWK: jwk)
            #expect(key.algorithm.rawValue == verifyWith["alg"], "\(id): key algorithm")
            let verdict = AuthVectors.verifiesJWS(testCase["jws"] as! String, key: key) ? "valid" : "invalid"
            #expect(verdict == expected, "case \(id): expected \(expected), got \(verdict)")
        }
    }

    /// Upstream anomalies (vectors README): 367/370 duplicate valid 357; 372/373 contain `?`.
    static let skipped: Set<Int> = [367, 370]
    static let overriddenToInvalid: Set<Int> = [372, 373]
    /// Groups whose algorithm this library implements.
    static let implemented: Set<String> = ["HS256", "RS256", "ES256"]

    @Test("Wycheproof json_web_signature_test.json")
    func wycheproof() throws {
        let root = try AuthVectors.object("vectors/wycheproof/json_web_signature_test.json")
        let groups = root["testGroups"] as! [[String: Any]]
        var iterated = 0
        for group in groups {
            let tests = group["tests"] as! [[String: Any]]
            iterated += tests.count
            let privateJWK = group["private"] as? [String: Any]
            let publicJWK = (group["public"] as? [String: Any]) ?? privateJWK
            let algorithm = (privateJWK?["alg"] ?? publicJWK?["alg"]) as? String
            let key: JWTVerificationKey? = publicJWK.flatMap { jwk in
                var jwk = jwk
                // Private members of an oct key are its key; asymmetric groups use the public JWK.
                if jwk["kty"] as? String == "oct" { jwk = privateJWK ?? jwk }
                return try? AuthVectors.key(fromJWK: jwk)
            }
            for test in tests {
                let id = test["tcId"] as! Int
                guard !Self.skipped.contains(id) else { continue }
                var expected = test["result"] as! String
                if Self.overriddenToInvalid.contains(id) { expected = "invalid" }
                if let algorithm, !Self.implemented.contains(algorithm) { expected = "invalid" }
                let jws = test["jws"] as? String ?? ""
                let verdict = key.map { AuthVectors.verifiesJWS(jws, key: $0) ? "valid" : "invalid" } ?? "invalid"
                #expect(
                    verdict == expected,
                    "tcId \(id) [\(group["comment"] as? String ?? "")] \(test["comment"] as? String ?? ""): expected \(expected), got \(verdict)"
                )
            }
        }
        #expect(iterated == root["numberOfTests"] as? Int)
    }
}
