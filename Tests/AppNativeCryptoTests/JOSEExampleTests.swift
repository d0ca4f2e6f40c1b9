import AppNativeCrypto
import Testing

/// RFC 7515 Appendix A and RFC 7520 §4 examples, used at the signature layer: the signing input
/// and signature bytes of each token go straight to the raw primitives. Header and claim
/// checks (alg allow-list, expiry) belong to the JWT layer and are tested there.
@Suite("RFC 7515 / RFC 7520 JWS examples")
struct JOSEExampleTests {
    static let path = "vectors/jose/rfc7515-rfc7520-jws.json"

    struct Corpus {
        let keys: [String: [String: Any]]
        let cases: [[String: Any]]

        init() throws {
            let json = try Fixtures.object(JOSEExampleTests.path)
            keys = try #require(json["keys"] as? [String: [String: Any]])
            cases = try #require(json["cases"] as? [[String: Any]])
        }

        func key(_ name: String) throws -> [String: Any] {
            try #require(keys[name], "no key \(name)")
        }

        func `case`(_ id: String) throws -> [String: Any] {
            try #require(cases.first { $0["id"] as? String == id }, "no case \(id)")
        }
    }

    static func jwkBytes(_ jwk: [String: Any], _ member: String) throws -> [UInt8] {
        let text = try #require(jwk[member] as? String, "JWK has no \(member)")
        return try #require(base64URLDecode(Substring(text)), "JWK \(member) is not base64url")
    }

    static func rsaKey(_ key: [String: Any]) throws -> RSAPublicKey {
        let jwk = try #require(key["publicJwk"] as? [String: Any])
        return try RSAPublicKey(modulus: jwkBytes(jwk, "n"), exponent: jwkBytes(jwk, "e"))
    }

    static func p256Key(_ key: [String: Any]) throws -> P256PublicKey {
        let jwk = try #require(key["publicJwk"] as? [String: Any])
        return try P256PublicKey(x: jwkBytes(jwk, "x"), y: jwkBytes(jwk, "y"))
    }

    /// Algorithms this module implements. Cases for others (ES512) are out of scope here; the
    /// JWT layer must refuse them.
    static let implemented: Set<String> = ["RS256", "ES256", "HS256"]

    @Test("every RS256 / ES256 / HS256 case verifies exactly when it is valid")
    func signatureLayer() throws {
        let corpus = try Corpus()
        var checked = 0
        for testCase in corpus.cases {
            let id = try #require(testCase["id"] as? String)
            let verifyWith = try #require(testCase["verifyWith"] as? [String: String])
            let alg = try #require(verifyWith["alg"])
            guard Self.implemented.contains(alg) else { continue }
            let key = try corpus.key(try #require(verifyWith["key"]))
            let expected = try #require(testCase["expected"] as? String)
            let jws = try #require(testCase["jws"] as? String)

            // Compact serialization: exactly three segments, the signature strict base64url.
            // Anything else is a rejection before any crypto runs.
            let segments = jws.split(separator: ".", omittingEmptySubsequences: false)
            var accepted = false
            if segments.count == 3, let signature = base64URLDecode(segments[2]) {
                let signingInput = Array("\(segments[0]).\(segments[1])".utf8)
                switch alg {
                case "RS256":
                    accepted = try Self.rsaKey(key).isValidPKCS1v15SHA256Signature(signature, for: signingInput)
                case "ES256":
                    accepted = try Self.p256Key(key).isValidSignature(rawRS: signature, for: signingInput)
                default:
                    let secret = try hex(try #require(key["keyBytesHex"] as? String))
                    accepted = try HMACSHA256(key: SecretBytes(secret)).isValidAuthenticationCode(
                        signature, for: signingInput)
                }
            }
            #expect(accepted == (expected == "valid"), "\(Self.path) case \(id): expected \(expected)")
            checked += 1
        }
        #expect(checked == 28, "\(Self.path): 29 cases minus the ES512 one")
    }

    @Test("RFC 7515 A.2 RS256: PEM and JWK keys agree; re-signing reproduces the RFC signature")
    func rs256() throws {
        let corpus = try Corpus()
        for (keyName, caseID) in [
            ("rfc7515-A2-rsa2048", "rfc7515-A.2-RS256"), ("rfc7520-3.4-rsa2048", "rfc7520-4.1-RS256"),
        ] {
            let key = try corpus.key(keyName)
            let testCase = try corpus.case(caseID)
            let fromJWK = try Self.rsaKey(key)
            let fromPEM = try RSAPublicKey(pem: try #require(key["publicKeySpkiPem"] as? String))
            #expect(fromJWK.modulus == fromPEM.modulus && fromJWK.exponent == fromPEM.exponent, "\(caseID)")
            #expect(fromJWK.bitCount == 2048)
            // JWK export round trip: the minimal bytes are exactly the JWK's n and e.
            let jwk = try #require(key["publicJwk"] as? [String: Any])
            #expect(fromJWK.modulus == (try Self.jwkBytes(jwk, "n")))
            #expect(fromJWK.exponent == (try Self.jwkBytes(jwk, "e")))

            let privateKey = try RSAPrivateKey(pem: try #require(key["privateKeyPkcs8Pem"] as? String))
            #expect(privateKey.publicKey.modulus == fromJWK.modulus)
            let signingInput = Array(try #require(testCase["signingInput"] as? String).utf8)
            let jws = try #require(testCase["jws"] as? String)
            let rfcSignature = try #require(base64URLDecode(jws.split(separator: ".")[2]))
            let signature = try privateKey.pkcs1v15SHA256Signature(for: signingInput)
            #expect(signature == rfcSignature, "\(caseID): RSASSA-PKCS1-v1_5 is deterministic")
            #expect(fromPEM.isValidPKCS1v15SHA256Signature(rfcSignature, for: signingInput), "\(caseID)")
        }
    }

    @Test("RFC 7515 A.3 ES256: the RFC signature verifies; the PKCS #8 key signs 64-byte r || s")
    func es256() throws {
        let corpus = try Corpus()
        let key = try corpus.key("rfc7515-A3-p256")
        let testCase = try corpus.case("rfc7515-A.3-ES256")
        let fromJWK = try Self.p256Key(key)
        let fromPEM = try P256PublicKey(pem: try #require(key["publicKeySpkiPem"] as? String))
        #expect(fromJWK.x == fromPEM.x && fromJWK.y == fromPEM.y)

        let signingInput = Array(try #require(testCase["signingInput"] as? String).utf8)
        let jws = try #require(testCase["jws"] as? String)
        let rfcSignature = try #require(base64URLDecode(jws.split(separator: ".")[2]))
        #expect(rfcSignature.count == 64)
        #expect(fromJWK.isValidSignature(rawRS: rfcSignature, for: signingInput))

        let signingKey = try P256SigningKey(pkcs8PEM: try #require(key["privateKeyPkcs8Pem"] as? String))
        #expect(signingKey.publicKey.x == fromJWK.x && signingKey.publicKey.y == fromJWK.y)
        let first = try signingKey.signature(for: signingInput)
        let second = try signingKey.signature(for: signingInput)
        #expect(first.count == 64 && second.count == 64)
        #expect(fromJWK.isValidSignature(rawRS: first, for: signingInput))
        #expect(fromJWK.isValidSignature(rawRS: second, for: signingInput))
        #expect(first != second, "ECDSA signatures are randomised")
        #expect(!fromJWK.isValidSignature(rawRS: first, for: signingInput + [0x20]))
    }

    @Test("RFC 7515 A.1 / RFC 7520 4.4 HS256: the MAC reproduces the RFC signature")
    func hs256() throws {
        let corpus = try Corpus()
        for (keyName, caseID) in [("rfc7515-A1-hmac", "rfc7515-A.1-HS256"), ("rfc7520-3.5-hmac", "rfc7520-4.4-HS256")] {
            let key = try corpus.key(keyName)
            let testCase = try corpus.case(caseID)
            let mac = try HMACSHA256(key: SecretBytes(try hex(try #require(key["keyBytesHex"] as? String))))
            let signingInput = Array(try #require(testCase["signingInput"] as? String).utf8)
            let jws = try #require(testCase["jws"] as? String)
            let rfcSignature = try #require(base64URLDecode(jws.split(separator: ".")[2]))
            #expect(mac.authenticationCode(for: signingInput) == rfcSignature, "\(caseID)")
        }
    }
}
