import AppNativeAuth
import Testing

@Suite("Bearer header parsing (auth.md §2)")
struct BearerCredentialTests {
    @Test(
        "the table of §2",
        arguments: [
            (nil, nil), ("", nil), ("Basic abc", nil), ("Negotiate x", nil),
            ("Bearer abc.def.ghi", "abc.def.ghi"), ("bearer abc", "abc"), ("BEARER   abc  ", "abc"),
            ("Bearer\tabc", "abc"), ("Bearer", ""), ("Bearer ", ""), ("  Bearer abc", "abc"), ("Bearerabc", nil),
        ] as [(String?, String?)]
    )
    func table(header: String?, expected: String?) {
        #expect(BearerCredential.token(fromAuthorization: header) == expected)
    }
}

@Suite("Strict base64url (RFC 4648 §5, RFC 7515 §2)")
struct Base64URLTests {
    @Test("round trip of every length up to 64")
    func roundTrip() {
        for length in 0...64 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let encoded = Base64URL.encode(bytes)
            #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
            #expect(Base64URL.decode(encoded) == bytes, "length \(length)")
        }
    }

    @Test("RFC 4648 test vectors, unpadded")
    func rfcVectors() {
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64URL.encode(plain) == encoded)
            #expect(Base64URL.decode(encoded) == Array(plain.utf8))
        }
    }

    @Test("rejects padding, other alphabets, whitespace, bad lengths and non-canonical bits")
    func rejects() {
        // "Zh", "Zm9" and "Zm-" have unused low bits set (non-canonical, RFC 4648 §3.5).
        for input in ["Zg==", "Zm8=", "ab+c", "ab/c", "Zm9v Zg", "Zm9v\n", "Z", "Zm9vY", "Zh", "Zm9", "Zm-", "Zm9vYmF=", "Zm9\u{0}"] {
            #expect(Base64URL.decode(input) == nil, "\(input.debugDescription)")
        }
        #expect(Base64URL.decode("Zm8") == Array("fo".utf8))
    }

    @Test("every byte value outside the alphabet is rejected")
    func everyByte() {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        for byte in UInt8.min...UInt8.max where !alphabet.contains(byte) {
            let input: [UInt8] = [UInt8(ascii: "A"), UInt8(ascii: "A"), UInt8(ascii: "A"), byte]
            #expect(input.withUnsafeBytes { Base64URL.decode($0) } == nil, "byte \(byte)")
        }
    }
}
