import AppNativeCrypto
import Testing

@Suite("HMAC-SHA256")
struct HMACTests {
    static let file = "hmac_sha256_test.json"

    /// Full 256-bit tags go through the real verification API. Truncated 128-bit tags (which the
    /// API deliberately refuses) are checked the way the file's README prescribes: compute the
    /// full MAC, take the first tagSize/8 bytes, compare in constant time.
    @Test("Wycheproof: every case matches its verdict")
    func wycheproof() throws {
        let vectors = try WycheproofFile(Self.file)
        var checker = VerdictChecker(file: Self.file)
        for group in vectors.groups {
            let tagBytes = try #require(group.fields["tagSize"] as? Int) / 8
            for test in group.cases {
                let key = try test.bytes("key", file: Self.file)
                let message = try test.bytes("msg", file: Self.file)
                let tag = try test.bytes("tag", file: Self.file)
                let mac = try HMACSHA256(key: SecretBytes(key))
                let accepted: Bool
                if tagBytes == HMACSHA256.byteCount {
                    accepted = mac.isValidAuthenticationCode(tag, for: message)
                } else {
                    let truncated = Array(mac.authenticationCode(for: message).prefix(tagBytes))
                    accepted = ConstantTime.equals(truncated, tag)
                    #expect(
                        !mac.isValidAuthenticationCode(tag, for: message),
                        "\(Self.file) tcId \(test.tcId): truncated tag accepted by the full-tag API")
                }
                checker.check(test, accepted: accepted)
            }
        }
        #expect(checker.checked == vectors.numberOfTests, "\(Self.file) looks truncated")
    }

    struct RFC4231Case: Sendable, CustomTestStringConvertible {
        let number: Int
        let key: [UInt8]
        let data: [UInt8]
        let hmacSHA256: String
        var testDescription: String { "RFC 4231 test case \(number)" }
    }

    /// RFC 4231 §4.2–§4.8, HMAC-SHA-256 rows. Case 5 is omitted: it checks a 128-bit truncation,
    /// which this API refuses by design.
    static let rfc4231Cases: [RFC4231Case] = [
        RFC4231Case(
            number: 1, key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8),
            hmacSHA256: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        RFC4231Case(
            number: 2, key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8),
            hmacSHA256: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        RFC4231Case(
            number: 3, key: [UInt8](repeating: 0xaa, count: 20), data: [UInt8](repeating: 0xdd, count: 50),
            hmacSHA256: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        RFC4231Case(
            number: 4, key: Array(1...25), data: [UInt8](repeating: 0xcd, count: 50),
            hmacSHA256: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        RFC4231Case(
            number: 6, key: [UInt8](repeating: 0xaa, count: 131),
            data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            hmacSHA256: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        RFC4231Case(
            number: 7, key: [UInt8](repeating: 0xaa, count: 131),
            data: Array(
                ("This is a test using a larger than block-size key and a larger than block-size data. "
                    + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
            hmacSHA256: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test("RFC 4231", arguments: rfc4231Cases)
    func rfc4231(_ vector: RFC4231Case) throws {
        let mac = try HMACSHA256(key: SecretBytes(vector.key))
        let expected = try hex(vector.hmacSHA256)
        #expect(mac.authenticationCode(for: vector.data) == expected, "test case \(vector.number)")
        #expect(mac.isValidAuthenticationCode(expected, for: vector.data), "test case \(vector.number)")
        // The same instance gives the same answer again (the template is not consumed).
        #expect(mac.authenticationCode(for: vector.data) == expected, "test case \(vector.number), second use")
    }

    @Test("codes of the wrong length or with one bit flipped are refused")
    func refusesWrongCodes() throws {
        let mac = try HMACSHA256(key: SecretBytes(Array(repeating: 0x42, count: 32)))
        let message = Array("payload".utf8)
        let code = mac.authenticationCode(for: message)
        #expect(mac.isValidAuthenticationCode(code, for: message))
        #expect(!mac.isValidAuthenticationCode(Array(code.prefix(16)), for: message))
        #expect(!mac.isValidAuthenticationCode(code + [0], for: message))
        #expect(!mac.isValidAuthenticationCode([], for: message))
        for bit in [0, 7, 128, 255] {
            var flipped = code
            flipped[bit / 8] ^= UInt8(1 << (bit % 8))
            #expect(!mac.isValidAuthenticationCode(flipped, for: message), "bit \(bit)")
        }
        #expect(!mac.isValidAuthenticationCode(code, for: Array("payloaD".utf8)))
    }

    @Test("empty messages are MACed; empty keys are refused")
    func edges() throws {
        let mac = try HMACSHA256(key: SecretBytes(Array("key".utf8)))
        // HMAC-SHA256("key", "") from RFC 2104's construction, cross-checked with openssl dgst.
        #expect(
            mac.authenticationCode(for: [])
                == (try hex("5d5d139563c95b5967b9bd9a8c9b233a9dedb45072794cd232dc1b74832607d0")))
        #expect(throws: CryptoError(.weakKey, "")) { try HMACSHA256(key: SecretBytes([])) }
    }
}
