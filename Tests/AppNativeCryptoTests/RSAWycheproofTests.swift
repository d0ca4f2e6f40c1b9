@testable import AppNativeCrypto
import Testing

/// Wycheproof RSASSA-PKCS1-v1_5 SHA-256 verification with 2048-bit keys.
@Suite("Wycheproof RSA PKCS#1 v1.5 SHA-256")
struct RSAWycheproofTests {
    static let file = "rsa_signature_2048_sha256_test.json"

    /// tcId 8 (flag MissingNull: the DigestInfo's SHA-256 AlgorithmIdentifier omits the NULL
    /// parameter) is `acceptable` upstream because some verifiers take that encoding too (see
    /// RFC 8017 Appendix B.1). Pinned to reject: OpenSSL 3 compares the decoded block with the
    /// one DER encoding it produces itself, and one accepted encoding per signature is the
    /// safer choice.
    static let pinnedAcceptable: [Int: Bool] = [8: false]

    @Test("every case matches its verdict; e = 3 keys are refused by policy")
    func vectors() throws {
        let vectors = try WycheproofFile(Self.file)
        var checker = VerdictChecker(file: Self.file, pinnedAcceptable: Self.pinnedAcceptable)
        var skippedByPolicy: [Int] = []

        for group in vectors.groups {
            let publicKey = try #require(group.fields["publicKey"] as? [String: Any])
            let modulus = try hex(try #require(publicKey["modulus"] as? String))
            let exponent = try hex(try #require(publicKey["publicExponent"] as? String))
            let ids = group.cases.map(\.tcId)

            let key: RSAPublicKey
            do {
                key = try RSAPublicKey(modulus: modulus, exponent: exponent)
            } catch {
                // Skipped: key rejected by policy (e != 65537). The rejection itself is asserted.
                #expect(exponent != [0x01, 0x00, 0x01], "\(Self.file) tcIds \(ids): e = 65537 key rejected: \(error)")
                #expect(error.code == .unsupportedKey, "\(Self.file) tcIds \(ids): \(error)")
                skippedByPolicy += ids
                continue
            }

            // The SPKI and PEM forms of the same key load to the same components.
            let der = try hex(try #require(group.fields["publicKeyDer"] as? String))
            let fromDER = try RSAPublicKey(spkiDER: der)
            let fromPEM = try RSAPublicKey(pem: try #require(group.fields["publicKeyPem"] as? String))
            #expect(fromDER.modulus == key.modulus && fromPEM.modulus == key.modulus, "\(Self.file) tcIds \(ids)")
            #expect(key.spkiDER == der, "\(Self.file) tcIds \(ids): SPKI re-encoding differs")
            #expect(key.bitCount == 2048 && key.exponent == [0x01, 0x00, 0x01])
            #expect(key.modulus.first != 0, "modulus export must be minimal")

            for test in group.cases {
                let message = try test.bytes("msg", file: Self.file)
                let signature = try test.bytes("sig", file: Self.file)
                checker.check(test, accepted: key.isValidPKCS1v15SHA256Signature(signature, for: message))
            }
        }

        #expect(skippedByPolicy == [258, 259], "\(Self.file): unexpected policy skips \(skippedByPolicy)")
        #expect(checker.checked + skippedByPolicy.count == vectors.numberOfTests)
        #expect(vectors.caseCount == vectors.numberOfTests, "\(Self.file) looks truncated")
    }

    @Test("e = 3 keys are refused in every input form")
    func exponentThreeRejectedEverywhere() throws {
        let vectors = try WycheproofFile(Self.file)
        let groups = vectors.groups.filter {
            ($0.fields["publicKey"] as? [String: Any])?["publicExponent"] as? String == "03"
        }
        #expect(groups.count == 2)
        for group in groups {
            let der = try hex(try #require(group.fields["publicKeyDer"] as? String))
            #expect(throws: CryptoError(.unsupportedKey, "")) { try RSAPublicKey(spkiDER: der) }
            let pem = try #require(group.fields["publicKeyPem"] as? String)
            #expect(throws: CryptoError(.unsupportedKey, "")) { try RSAPublicKey(pem: pem) }
        }
    }
}
