import AppNativeAuth
import AppNativeCrypto
import AppNativeJSON

// Unsafe (harness): the input is libFuzzer's buffer, valid for the `run` call and read within its
// count; buffers handed to the parsers are borrowed for their call and copied before they are kept.

/// The JWKS document parser, exactly as the key cache calls it on a downloaded document
/// (STYLE.md §6).
///
/// Input: the document. `JSONWebKeySet.parse` must either throw `keysUnavailable` or return a
/// non-empty set in which every `kid` is non-empty and names an entry of the document's `keys`
/// array, every key has at least 2048 bits and exponent 65537, and no more keys than entries.
/// Each key is then used as a verification would use it: a signature of the right length and
/// one of a wrong length must both be rejected (never trap).
enum JWKSHarness {
    static let message = Array("header.payload".utf8)

    static func run(_ input: UnsafeRawBufferPointer) {
        let document = unsafe Array(input)
        let keySet: JSONWebKeySet
        do throws(AuthError) {
            keySet = try JSONWebKeySet.parse(document)
        } catch {
            check(error.code == .keysUnavailable, "parse threw \(error.code)")
            return
        }
        check(!keySet.keys.isEmpty, "an empty key set parsed")
        guard let entries = (try? JSONParser().parse(document))?.objectValue?["keys"]?.arrayValue else {
            failCheck("a key set parsed from a document JSONParser does not read as {\"keys\": [...]}")
        }
        check(keySet.keys.count <= entries.count, "\(keySet.keys.count) keys from \(entries.count) entries")
        let kids = Set(entries.compactMap { $0.objectValue?["kid"]?.stringValue })
        for (kid, key) in keySet.keys {
            check(!kid.isEmpty && kids.contains(kid), "kid \(kid.debugDescription) is not an entry's")
            check(key.bitCount >= 2048, "a \(key.bitCount)-bit key was accepted")
            check(key.exponent == [0x01, 0x00, 0x01], "exponent \(key.exponent) was accepted")
            let signature = [UInt8](repeating: 0x5A, count: key.signatureByteCount)
            check(!key.isValidPKCS1v15SHA256Signature(signature, for: message), "a constant signature verified")
            check(!key.isValidPKCS1v15SHA256Signature(Array(signature.dropLast()), for: message), "a short signature verified")
            check(!key.isValidPKCS1v15SHA256Signature(signature + [0], for: message), "a long signature verified")
        }
        // No "a second parse gives the same keys": OpenSSL's SP 800-56B public key check runs
        // Miller-Rabin with random bases, and its gcd step finds a prime factor above the
        // deterministic small-prime bound (752) only sometimes, so a broken modulus such as
        // 947 x 8293 x ... can be accepted by one parse and refused by the next.
    }
}

/// `precondition` that also reports its message in optimized builds (which drop it), so a crash
/// found by libFuzzer explains itself in the log.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

func failCheck(_ message: @autoclosure () -> String) -> Never {
    fatalError(message())
}
