import AppNativeCrypto
import Testing

/// Wycheproof ECDSA P-256 SHA-256 verification, in JWS `r || s` form and in DER form.
@Suite("Wycheproof ECDSA P-256 SHA-256")
struct ECDSAWycheproofTests {
    /// Builds the group's key from `wx`/`wy` (signed big-endian hex, so possibly shorter than
    /// 32 bytes or with a leading 00) through `P256PublicKey(x:y:)`, and checks that the SPKI
    /// DER and PEM forms give the same point.
    static func key(for group: WycheproofFile.Group, file: String) throws -> P256PublicKey {
        let publicKey = try #require(group.fields["publicKey"] as? [String: Any])
        let x = try coordinate(try #require(publicKey["wx"] as? String))
        let y = try coordinate(try #require(publicKey["wy"] as? String))
        let key = try P256PublicKey(x: x, y: y)
        let fromDER = try P256PublicKey(spkiDER: try hex(try #require(group.fields["publicKeyDer"] as? String)))
        let fromPEM = try P256PublicKey(pem: try #require(group.fields["publicKeyPem"] as? String))
        let ids = group.cases.map(\.tcId)
        #expect(fromDER.x == key.x && fromDER.y == key.y, "\(file) tcIds \(ids): SPKI point differs")
        #expect(fromPEM.x == key.x && fromPEM.y == key.y, "\(file) tcIds \(ids): PEM point differs")
        #expect(key.x.count == 32 && key.y.count == 32)
        return key
    }

    /// Wycheproof's minimal signed encoding, normalised to the 32 (or 00-prefixed 33) bytes a
    /// JWK carries.
    static func coordinate(_ text: String) throws -> [UInt8] {
        let bytes = try hex(text)
        if bytes.count >= 32 { return bytes }
        return [UInt8](repeating: 0, count: 32 - bytes.count) + bytes
    }

    @Test("P1363 (r || s) file: every case matches its verdict")
    func p1363() throws {
        let file = "ecdsa_secp256r1_sha256_p1363_test.json"
        let vectors = try WycheproofFile(file)
        var checker = VerdictChecker(file: file)
        for group in vectors.groups {
            let key = try Self.key(for: group, file: file)
            for test in group.cases {
                let message = try test.bytes("msg", file: file)
                let signature = try test.bytes("sig", file: file)
                checker.check(test, accepted: key.isValidSignature(rawRS: signature, for: message))
            }
        }
        #expect(checker.checked == vectors.numberOfTests, "\(file) looks truncated")
    }

    @Test("DER file: every case matches its verdict (strict DER)")
    func der() throws {
        let file = "ecdsa_secp256r1_sha256_test.json"
        let vectors = try WycheproofFile(file)
        var checker = VerdictChecker(file: file)
        for group in vectors.groups {
            let key = try Self.key(for: group, file: file)
            for test in group.cases {
                let message = try test.bytes("msg", file: file)
                let signature = try test.bytes("sig", file: file)
                checker.check(test, accepted: key.isValidSignature(der: signature, for: message))
            }
        }
        #expect(checker.checked == vectors.numberOfTests, "\(file) looks truncated")
    }
}
