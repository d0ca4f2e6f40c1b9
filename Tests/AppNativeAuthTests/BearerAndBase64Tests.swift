@testable import AppNativeAuth
import AppNativeHTTP
import Foundation
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

@Suite("Bearer header parsing (contract/auth.md §2)")
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

    @Test(
        "read in place from the request's field bytes: the same answers; non-ASCII goes through the string path",
        arguments: [
            (nil, nil), ("", nil), ("Basic abc", nil), ("Bearer abc.def.ghi", "abc.def.ghi"), ("bearer abc", "abc"),
            ("BEARER   abc  ", "abc"), ("Bearer\tabc", "abc"), ("Bearer", ""), ("Bearerabc", nil),
            ("Bearer abc\u{e9}", "abc\u{e9}"), ("B\u{e9}arer abc", nil), ("Bearer\u{a0}abc", "abc"),
        ] as [(String?, String?)]
    )
    func inPlace(header: String?, expected: String?) {
        var headers = HTTPHeaders()
        if let header { headers.add(name: "Authorization", value: header) }
        var inPlace: String?? = nil
        var knownASCII: Bool?
        let present = unsafe headers.withFirstValueBytes("Authorization") { value, isASCII in
            knownASCII = isASCII
            inPlace = unsafe BearerCredential.asciiToken(value)
            // What the authenticator does: trust the parser's ASCII flag and skip the scan.
            if isASCII {
                let observed = unsafe BearerCredential.asciiToken(value, knownASCII: true) == inPlace
                #expect(observed)
            }
        }
        #expect(knownASCII == header.map { $0.utf8.allSatisfy { $0 < 0x80 } })
        #expect(present == (header != nil))
        switch inPlace {
        case nil where header == nil:
            break
        case .some(.some(let token)):
            #expect(token == expected)
            #expect(header?.utf8.allSatisfy { $0 < 0x80 } == true)
        case .some(nil):
            #expect(expected == nil)
            #expect(header?.utf8.allSatisfy { $0 < 0x80 } == true)
        case nil:
            #expect(header?.utf8.contains { $0 >= 0x80 } == true)
            #expect(BearerCredential.token(fromAuthorization: headers.first("Authorization")) == expected)
        }
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

    @Test("every two- and three-character tail: accepted exactly when its unused bits are zero")
    func everyTail() {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var accepted = 0
        for (a, first) in alphabet.enumerated() {
            for (b, second) in alphabet.enumerated() {
                let pair = [UInt8](repeating: UInt8(ascii: "A"), count: 4) + [first, second]
                let decoded = unsafe pair.withUnsafeBytes { unsafe Base64URL.decode($0) }
                #expect((decoded != nil) == (b & 0x0F == 0), "tail \(a) \(b)")
                if let decoded {
                    accepted += 1
                    #expect(decoded == [0, 0, 0, UInt8(a << 2 | b >> 4)])
                }
                for (c, third) in alphabet.enumerated() {
                    let triple = [first, second, third]
                    let decoded = unsafe triple.withUnsafeBytes { unsafe Base64URL.decode($0) }
                    #expect((decoded != nil) == (c & 0x03 == 0), "tail \(a) \(b) \(c)")
                    if let decoded { #expect(decoded == [UInt8(a << 2 | b >> 4), UInt8((b & 0x0F) << 4 | c >> 2)]) }
                }
            }
        }
        #expect(accepted == 64 * 4)
    }

    @Test("agrees with Foundation's base64 (alphabet swapped, padding dropped) on pseudo-random input")
    func agreesWithFoundation() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for length in 0...300 {
            let bytes = (0..<length).map { _ -> UInt8 in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 56)
            }
            let reference = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == reference, "length \(length)")
            #expect(Base64URL.decode(reference) == bytes, "length \(length)")
        }
    }

    @Test("decoding writes exactly the decoded length, whatever the step it decodes with")
    func writesNoFurtherThanTheDecodedLength() {
        for length in 0...120 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 91 &+ 7) }
            let encoded = Array(Base64URL.encode(bytes).utf8)
            let count = Base64URL.decodedCount(encoded.count)!
            var output = [UInt8](repeating: 0xAA, count: count + 16)
            var span = output.mutableSpan
            let valid = Base64URL.decode(encoded.span, into: &span)
            #expect(valid && Array(output[..<count]) == bytes, "length \(length)")
            #expect(output[count...].allSatisfy { $0 == 0xAA }, "length \(length): wrote past the end")
        }
    }

    @Test("a byte outside the alphabet is found at every position of a long input")
    func badByteAnywhere() {
        let valid = Array(Base64URL.encode((0..<45).map { UInt8($0) }).utf8)
        for position in valid.indices {
            for bad in [UInt8(ascii: "="), UInt8(ascii: "+"), 0x00, 0x80, 0xFF] {
                var input = valid
                input[position] = bad
                let observed1 = unsafe input.withUnsafeBytes { unsafe Base64URL.decode($0) } == nil
                #expect(observed1, "byte \(bad) at \(position)")
            }
        }
    }

    @Test("every byte value outside the alphabet is rejected")
    func everyByte() {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        for byte in UInt8.min...UInt8.max where !alphabet.contains(byte) {
            let input: [UInt8] = [UInt8(ascii: "A"), UInt8(ascii: "A"), UInt8(ascii: "A"), byte]
            let observed2 = unsafe input.withUnsafeBytes { unsafe Base64URL.decode($0) } == nil
            #expect(observed2, "byte \(byte)")
        }
    }
}
