import AppNativeCrypto
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

@Suite("SHA-256")
struct SHA256Tests {
    /// FIPS 180-4 examples (NIST CSRC "SHA256.pdf") plus the empty string.
    static let vectors: [(input: String, digest: String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (String(repeating: "a", count: 1_000_000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
    ]

    @Test("FIPS 180-4 examples through every overload")
    func vectorsMatch() throws {
        for (input, digest) in Self.vectors {
            let expected = try hex(digest)
            let bytes = Array(input.utf8)
            #expect(SHA256.hash(input) == expected, "\(input.prefix(20))")
            #expect(SHA256.hash(bytes) == expected)
            let observed1 = unsafe bytes.withUnsafeBytes { unsafe SHA256.hash($0) } == expected
            #expect(observed1)
            #expect(SHA256.digest(input).bytes == expected)
            #expect(SHA256.digest(bytes).description == digest)
            #expect(SHA256Digest(bytes: expected) == SHA256.digest(bytes))
        }
        #expect(SHA256.byteCount == 32)
    }

    @Test("SHA256Digest is a usable dictionary key")
    func digestValue() throws {
        let a = SHA256.digest("a")
        let b = SHA256.digest("b")
        #expect(a != b)
        #expect(Set([a, b, SHA256.digest("a")]).count == 2)
        #expect(SHA256Digest(bytes: [0, 1, 2]) == nil)
        #expect(SHA256Digest(bytes: a.bytes) == a)
        let observed2 = unsafe a.withUnsafeBytes { unsafe Array($0) } == SHA256.hash("a")
        #expect(observed2)
        // A non-contiguous (bridged-like) string hashes the same as its UTF-8 bytes.
        let composed = "caf\u{E9} \u{1F600}"
        #expect(SHA256.hash(composed) == SHA256.hash(Array(composed.utf8)))
    }
}
