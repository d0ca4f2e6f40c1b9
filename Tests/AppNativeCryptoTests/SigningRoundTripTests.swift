import AppNativeCrypto
import Testing

@Suite("Signing round trips and concurrency")
struct SigningRoundTripTests {
    @Test("generated RSA keys sign deterministically and export to PKCS #8")
    func rsaRoundTrip() throws {
        let key = try RSAPrivateKey.generate()
        #expect(key.publicKey.bitCount == 2048 && key.publicKey.exponent == [0x01, 0x00, 0x01])
        let message = Array("header.payload".utf8)
        let signature = try key.pkcs1v15SHA256Signature(for: message)
        #expect(signature.count == 256)
        #expect(try key.pkcs1v15SHA256Signature(for: message) == signature)
        #expect(key.publicKey.isValidPKCS1v15SHA256Signature(signature, for: message))
        #expect(!key.publicKey.isValidPKCS1v15SHA256Signature(signature, for: message + [0]))
        #expect(!key.publicKey.isValidPKCS1v15SHA256Signature(Array(signature.dropFirst()), for: message))
        #expect(!key.publicKey.isValidPKCS1v15SHA256Signature([0] + signature, for: message))
        #expect(!key.publicKey.isValidPKCS1v15SHA256Signature([], for: message))

        let reloaded = try RSAPrivateKey(pem: key.pkcs8PEM)
        #expect(reloaded.publicKey.modulus == key.publicKey.modulus)
        #expect(try reloaded.pkcs1v15SHA256Signature(for: message) == signature)
        let fromComponents = try RSAPublicKey(modulus: key.publicKey.modulus, exponent: key.publicKey.exponent)
        #expect(fromComponents.isValidPKCS1v15SHA256Signature(signature, for: message))
        #expect(try RSAPublicKey(spkiDER: key.publicKey.spkiDER).modulus == key.publicKey.modulus)
    }

    @Test("generated P-256 keys sign r || s that verifies in both encodings")
    func p256RoundTrip() throws {
        let key = try P256SigningKey.generate()
        let message = Array("apns provider token".utf8)
        for _ in 0..<20 {
            let signature = try key.signature(for: message)
            #expect(signature.count == 64)
            #expect(key.publicKey.isValidSignature(rawRS: signature, for: message))
            #expect(key.publicKey.isValidSignature(der: Self.der(rawRS: signature), for: message))
            #expect(!key.publicKey.isValidSignature(rawRS: signature, for: message + [1]))
        }
        let reloaded = try P256SigningKey(pkcs8PEM: key.pkcs8PEM)
        #expect(reloaded.publicKey.x == key.publicKey.x && reloaded.publicKey.y == key.publicKey.y)
        #expect(key.publicKey.isValidSignature(rawRS: try reloaded.signature(for: message), for: message))
        #expect(try P256PublicKey(spkiDER: key.publicKey.spkiDER).y == key.publicKey.y)
    }

    @Test("DER signatures must be strict DER (X.690 §10), not merely BER")
    func strictDER() throws {
        let key = try P256SigningKey.generate()
        let message = Array("strict".utf8)
        // A signature whose r and s both have the top bit clear, so each is 32 bytes in DER
        // with no sign octet (a one-in-four draw; ECDSA is randomised).
        var rawRS = try key.signature(for: message)
        while rawRS[0] >= 0x80 || rawRS[0] == 0 || rawRS[32] >= 0x80 || rawRS[32] == 0 {
            rawRS = try key.signature(for: message)
        }
        let r = Array(rawRS.prefix(32))
        let s = Array(rawRS.suffix(32))
        let good = Self.der(rawRS: rawRS)
        #expect(good == [0x30, 0x44, 0x02, 0x20] + r + [0x02, 0x20] + s)
        #expect(key.publicKey.isValidSignature(der: good, for: message))

        let variants: [(String, [UInt8])] = [
            ("redundant leading zero on r", [0x30, 0x45, 0x02, 0x21, 0x00] + r + [0x02, 0x20] + s),
            ("redundant leading zero on s", [0x30, 0x45, 0x02, 0x20] + r + [0x02, 0x21, 0x00] + s),
            ("long-form sequence length", [0x30, 0x81, 0x44, 0x02, 0x20] + r + [0x02, 0x20] + s),
            ("long-form integer length", [0x30, 0x45, 0x02, 0x81, 0x20] + r + [0x02, 0x20] + s),
            ("indefinite length", [0x30, 0x80, 0x02, 0x20] + r + [0x02, 0x20] + s + [0x00, 0x00]),
            ("trailing byte", good + [0x00]),
            ("sequence length too long", [0x30, 0x45, 0x02, 0x20] + r + [0x02, 0x20] + s),
            ("sequence length too short", [0x30, 0x43, 0x02, 0x20] + r + [0x02, 0x20] + s),
            ("third integer", [0x30, 0x47, 0x02, 0x20] + r + [0x02, 0x20] + s + [0x02, 0x01, 0x01]),
            ("negative r", [0x30, 0x44, 0x02, 0x20] + [r[0] | 0x80] + r.dropFirst() + [0x02, 0x20] + s),
            ("r as OCTET STRING", [0x30, 0x44, 0x04, 0x20] + r + [0x02, 0x20] + s),
            ("SET instead of SEQUENCE", [0x31, 0x44, 0x02, 0x20] + r + [0x02, 0x20] + s),
            ("empty", []),
            ("r || s given as DER", rawRS),
        ]
        for (name, der) in variants {
            #expect(!key.publicKey.isValidSignature(der: der, for: message), "\(name)")
        }
    }

    /// DER ECDSA-Sig-Value from r || s, written out here independently of the module.
    static func der(rawRS: [UInt8]) -> [UInt8] {
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty || value[0] >= 0x80 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(rawRS.prefix(32)) + integer(rawRS.suffix(32))
        return [0x30, UInt8(body.count)] + body
    }

    @Test("one key object serves many threads at once")
    func concurrentUse() async throws {
        let rsa = try RSAPrivateKey.generate()
        let p256 = try P256SigningKey.generate()
        let mac = try HMACSHA256(key: SecretBytes.random(count: 32))
        let message = Array(repeating: UInt8(ascii: "x"), count: 300)
        let rsaSignature = try rsa.pkcs1v15SHA256Signature(for: message)
        let macCode = mac.authenticationCode(for: message)
        let rsaPublic = rsa.publicKey
        let p256Public = p256.publicKey

        let failures = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var failures = 0
                    for iteration in 0..<50 {
                        var own = message
                        own[0] = UInt8(truncatingIfNeeded: task * 50 + iteration)
                        if !rsaPublic.isValidPKCS1v15SHA256Signature(rsaSignature, for: message) { failures += 1 }
                        if rsaPublic.isValidPKCS1v15SHA256Signature(rsaSignature, for: own) && own != message {
                            failures += 1
                        }
                        if !mac.isValidAuthenticationCode(macCode, for: message) { failures += 1 }
                        if mac.authenticationCode(for: own) != mac.authenticationCode(for: own) { failures += 1 }
                        guard let signature = try? p256.signature(for: own),
                            p256Public.isValidSignature(rawRS: signature, for: own)
                        else {
                            failures += 1
                            continue
                        }
                        if iteration % 10 == 0, (try? rsa.pkcs1v15SHA256Signature(for: message)) != rsaSignature {
                            failures += 1
                        }
                    }
                    return failures
                }
            }
            return await group.reduce(0, +)
        }
        #expect(failures == 0)
    }
}
