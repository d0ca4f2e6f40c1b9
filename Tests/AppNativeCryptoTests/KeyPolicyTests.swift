import AppNativeCrypto
import Foundation
import Testing

/// What the key types refuse, and with which code (docs/style.md §4: tests match codes).
@Suite("Key policy")
struct KeyPolicyTests {
    static func fixture(_ name: String) throws -> String {
        try Fixtures.text("keys/\(name)")
    }

    /// The RFC 7515 A.2 modulus (2048 bits), a known-good value to vary.
    static func rfcModulus() throws -> [UInt8] {
        let json = try Fixtures.object(JOSEExampleTests.path)
        let keys = try #require(json["keys"] as? [String: [String: Any]])
        let jwk = try #require(keys["rfc7515-A2-rsa2048"]?["publicJwk"] as? [String: Any])
        return try JOSEExampleTests.jwkBytes(jwk, "n")
    }

    // MARK: RSA

    @Test("1024-bit RSA is a weak key in every form")
    func rsa1024() throws {
        #expect(throws: CryptoError(.weakKey, "")) { try RSAPublicKey(pem: try Self.fixture("rsa-1024-public.pem")) }
        #expect(throws: CryptoError(.weakKey, "")) { try RSAPrivateKey(pem: try Self.fixture("rsa-1024.pem")) }
        #expect(throws: CryptoError(.weakKey, "")) { try RSAPrivateKey.generate(bits: 1024) }
        let modulus = try Self.rfcModulus()
        #expect(throws: CryptoError(.weakKey, "")) {
            try RSAPublicKey(modulus: Array(modulus.prefix(128)), exponent: [0x01, 0x00, 0x01])
        }
        // 2047 bits: one short.
        var short = try Self.rfcModulus()
        short[0] = 0x7f
        #expect(throws: CryptoError(.weakKey, "")) { try RSAPublicKey(modulus: short, exponent: [0x01, 0x00, 0x01]) }
    }

    @Test("exponents other than 65537 are unsupported")
    func exponents() throws {
        let modulus = try Self.rfcModulus()
        for exponent: [UInt8] in [[0x03], [0x01, 0x00, 0x03], [0x01, 0x00, 0x00, 0x01], [0x01], []] {
            #expect(throws: CryptoError(.unsupportedKey, ""), "e = \(exponent)") {
                try RSAPublicKey(modulus: modulus, exponent: exponent)
            }
        }
        #expect(throws: CryptoError(.unsupportedKey, "")) {
            try RSAPrivateKey(pem: try Self.fixture("rsa-2048-e3.pem"))
        }
        // Leading zero bytes are allowed on both components.
        let key = try RSAPublicKey(modulus: [0, 0] + modulus, exponent: [0, 0x01, 0x00, 0x01])
        #expect(key.modulus == modulus && key.exponent == [0x01, 0x00, 0x01] && key.bitCount == 2048)
    }

    @Test("malformed RSA moduli are invalid; oversized ones unsupported")
    func moduli() throws {
        var even = try Self.rfcModulus()
        even[even.count - 1] &= 0xfe
        #expect(throws: CryptoError(.invalidKey, "")) { try RSAPublicKey(modulus: even, exponent: [0x01, 0x00, 0x01]) }
        #expect(throws: CryptoError(.invalidKey, "")) { try RSAPublicKey(modulus: [], exponent: [0x01, 0x00, 0x01]) }
        #expect(throws: CryptoError(.invalidKey, "")) {
            try RSAPublicKey(modulus: [0, 0], exponent: [0x01, 0x00, 0x01])
        }
        let huge = [UInt8](repeating: 0xff, count: 1025)
        #expect(throws: CryptoError(.unsupportedKey, "")) {
            try RSAPublicKey(modulus: huge, exponent: [0x01, 0x00, 0x01])
        }
        #expect(throws: CryptoError(.unsupportedKey, "")) { try RSAPrivateKey.generate(bits: 16384) }
        // A 2048-bit odd modulus that OpenSSL's SP 800-56B check refuses (it has small factors).
        let multipleOfThree = [UInt8](repeating: 0xff, count: 256)
        #expect(throws: CryptoError(.invalidKey, "")) {
            try RSAPublicKey(modulus: multipleOfThree, exponent: [0x01, 0x00, 0x01])
        }
    }

    /// 757 × q (q a 2038-bit prime), 2048 bits, gcd(n − 1, 756) = 6: no factor below OpenSSL's
    /// trial-division bound (752), so only the Miller-Rabin test on random bases can find 757, and
    /// it finds it on some runs only.
    static let smallFactorModulusHex = [
        "fc24fd651970ad09fa2a25e8f11e85209d385430a880af99bdd666a49cfe796c4b68d81e3365c6b9d3bd67e450d092c6",
        "218830c9bb913beaff0a7a7a65de60817d8de17d8f2c25bba60824b6a940c4355a30f68e19792740bd8847f83a4148c9",
        "1cea62b8be9d38d0a066618f3ab99f60aee6b4ec1d19f27c930a889a6e357769f4db0f80cb6b856ef2588917c5d8a5cd",
        "4254fd1cae3bd200034a9d735ba2084e05021b3762b8e30eb27da3e3120a46aa6b6437e8f9c93b4f2781fd88921bb536",
        "ea303751af60a65cc4524e4db2b52367cd54b58917844217904bbe533a35ce2324ff4afc1b8d852c9456583a85f869e5",
        "0f3a01bcacbf6c79d35030365aa4cf67"
    ].joined()

    @Test("a modulus OpenSSL's random-base check refuses only sometimes gets the same verdict every time")
    func deterministicVerdict() throws {
        let hex = Array(Self.smallFactorModulusHex.utf8)
        var modulus: [UInt8] = []
        for index in stride(from: 0, to: hex.count, by: 2) {
            modulus.append(try #require(UInt8(String(decoding: hex[index..<index + 2], as: UTF8.self), radix: 16)))
        }
        #expect(modulus.count == 256)
        var verdicts: [Bool] = []
        for _ in 0..<64 {
            verdicts.append((try? RSAPublicKey(modulus: modulus, exponent: [0x01, 0x00, 0x01])) != nil)
        }
        #expect(Set(verdicts).count == 1, "verdicts: \(verdicts)")
    }

    @Test("RSA keys refuse other key types and trailing bytes")
    func rsaWrongTypes() throws {
        #expect(throws: CryptoError(.unsupportedKey, "")) { try RSAPublicKey(pem: try Self.fixture("p384-public.pem")) }
        #expect(throws: CryptoError(.unsupportedKey, "")) { try RSAPrivateKey(pem: try Self.fixture("p384.pem")) }
        #expect(throws: CryptoError(.unsupportedKey, "")) { try RSAPrivateKey(pem: try Self.fixture("ed25519.pem")) }
        let spki = try RSAPublicKey(modulus: try Self.rfcModulus(), exponent: [0x01, 0x00, 0x01]).spkiDER
        #expect(throws: CryptoError(.invalidKey, "")) { try RSAPublicKey(spkiDER: spki + [0]) }
        #expect(throws: CryptoError(.unsupportedKey, "")) { try P256PublicKey(spkiDER: spki) }
    }

    // MARK: P-256

    @Test("P256SigningKey refuses P-384, RSA, Ed25519 and encrypted keys")
    func p256WrongKeys() throws {
        #expect(throws: CryptoError(.unsupportedKey, "")) { try P256SigningKey(pkcs8PEM: try Self.fixture("p384.pem")) }
        #expect(throws: CryptoError(.unsupportedKey, "")) {
            try P256SigningKey(pkcs8PEM: try Self.fixture("rsa-2048-pkcs1.pem"))
        }
        #expect(throws: CryptoError(.unsupportedKey, "")) {
            try P256SigningKey(pkcs8PEM: try Self.fixture("rsa-1024.pem"))
        }
        #expect(throws: CryptoError(.unsupportedKey, "")) {
            try P256SigningKey(pkcs8PEM: try Self.fixture("ed25519.pem"))
        }
        #expect(throws: CryptoError(.unsupportedKey, "")) {
            try P256SigningKey(pkcs8PEM: try Self.fixture("p256-encrypted.pem"))
        }
        #expect(throws: CryptoError(.unsupportedKey, "")) {
            try P256PublicKey(pem: try Self.fixture("p384-public.pem"))
        }
        #expect(throws: CryptoError(.unsupportedKey, "")) {
            try P256PublicKey(pem: try Self.fixture("rsa-1024-public.pem"))
        }
    }

    @Test("P256PublicKey refuses points off the curve and coordinates of the wrong length")
    func p256Points() throws {
        let key = try P256SigningKey.generate().publicKey
        var y = key.y
        y[31] ^= 0x01
        #expect(throws: CryptoError(.invalidKey, "")) { try P256PublicKey(x: key.x, y: y) }
        #expect(throws: CryptoError(.invalidKey, "")) {
            try P256PublicKey(x: [UInt8](repeating: 0, count: 32), y: [UInt8](repeating: 0, count: 32))
        }
        #expect(throws: CryptoError(.invalidKey, "")) { try P256PublicKey(x: Array(key.x.dropFirst()), y: key.y) }
        #expect(throws: CryptoError(.invalidKey, "")) { try P256PublicKey(x: key.x, y: [1] + key.y) }
        #expect(throws: CryptoError(.invalidKey, "")) { try P256PublicKey(x: key.x + [0], y: key.y) }
        // A leading 00 (signed big-endian, 33 bytes) is accepted and stripped.
        let padded = try P256PublicKey(x: [0] + key.x, y: [0] + key.y)
        #expect(padded.x == key.x && padded.y == key.y)
        // Trailing bytes after the SPKI are refused.
        #expect(throws: CryptoError(.invalidKey, "")) { try P256PublicKey(spkiDER: key.spkiDER + [0]) }
        #expect(throws: CryptoError(.invalidKey, "")) { try RSAPublicKey(spkiDER: [0x30, 0x00]) }
        #expect(throws: CryptoError(.unsupportedKey, "")) { try RSAPublicKey(spkiDER: key.spkiDER) }
        #expect(try P256PublicKey(spkiDER: key.spkiDER).x == key.x)
    }

    @Test("the all-zero 'psychic signature' (CVE-2022-21449) and out-of-range r, s are refused")
    func psychicSignature() throws {
        let signingKey = try P256SigningKey.generate()
        let key = signingKey.publicKey
        let message = Array("any message at all".utf8)
        #expect(!key.isValidSignature(rawRS: [UInt8](repeating: 0, count: 64), for: message))
        #expect(!key.isValidSignature(der: [0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00], for: message))
        #expect(!key.isValidSignature(rawRS: [], for: message))

        let order: [UInt8] = try hex("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
        let good = try signingKey.signature(for: message)
        #expect(key.isValidSignature(rawRS: good, for: message))
        let r = Array(good.prefix(32))
        let s = Array(good.suffix(32))
        #expect(!key.isValidSignature(rawRS: r + [UInt8](repeating: 0, count: 32), for: message), "s = 0")
        #expect(!key.isValidSignature(rawRS: [UInt8](repeating: 0, count: 32) + s, for: message), "r = 0")
        #expect(!key.isValidSignature(rawRS: order + s, for: message), "r = n")
        #expect(!key.isValidSignature(rawRS: r + order, for: message), "s = n")
        #expect(!key.isValidSignature(rawRS: good + [0], for: message), "65 bytes")
        #expect(!key.isValidSignature(rawRS: Array(good.dropLast()), for: message), "63 bytes")
    }

    // MARK: PEM

    @Test(
        "garbage PEM is refused as invalidPEM",
        arguments: [
            "",
            "   \n\t ",
            "not a key at all",
            "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n",
            "-----BEGIN PRIVATE KEY-----\n!!!!\n-----END PRIVATE KEY-----\n",
            "-----BEGIN PRIVATE KEY-----\nAAA\n-----END PRIVATE KEY-----\n",
            "-----BEGIN PRIVATE KEY-----\nAB==\n-----END PRIVATE KEY-----\n",
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PUBLIC KEY-----\n",
            "-----BEGIN PRIVATE KEY-----\n\n-----END PRIVATE KEY-----\n",
            "junk\n-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\ntrailing junk",
            "-----BEGIN PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\nAAAA\n-----END PRIVATE KEY-----\n",
        ]
    )
    func garbagePEM(_ text: String) {
        #expect(throws: CryptoError(.invalidPEM, "")) { try P256SigningKey(pkcs8PEM: text) }
        #expect(throws: CryptoError(.invalidPEM, "")) { try RSAPrivateKey(pem: text) }
    }

    @Test("well-formed PEM holding garbage DER, or DER with trailing bytes, is an invalid key")
    func garbageDER() throws {
        /// `pem` with one zero byte appended to its DER.
        func withTrailingByte(_ pem: String) throws -> String {
            let lines = pem.split(separator: "\n")
            let der = try #require(Data(base64Encoded: lines.dropFirst().dropLast().joined()))
            let extended = (der + [0]).base64EncodedString(options: .lineLength64Characters)
            return "\(lines.first ?? "")\n\(extended)\n\(lines.last ?? "")\n"
        }
        let p256 = try withTrailingByte(try P256SigningKey.generate().pkcs8PEM)
        #expect(throws: CryptoError(.invalidKey, "")) { try P256SigningKey(pkcs8PEM: p256) }
        let rsa = try withTrailingByte(try Self.fixture("rsa-2048-pkcs1.pem"))
        #expect(throws: CryptoError(.invalidKey, "")) { try RSAPrivateKey(pem: rsa) }
        let spki = try withTrailingByte(try Self.fixture("p384-public.pem"))
        #expect(throws: CryptoError(.invalidKey, "")) { try P256PublicKey(pem: spki) }
        let text = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
        #expect(throws: CryptoError(.invalidKey, "")) { try P256SigningKey(pkcs8PEM: text) }
        let publicText = "-----BEGIN PUBLIC KEY-----\nMAA=\n-----END PUBLIC KEY-----\n"
        #expect(throws: CryptoError(.invalidKey, "")) { try P256PublicKey(pem: publicText) }
    }

    @Test("a certificate or a second key is not a key")
    func otherBlocks() throws {
        let certificate = try Self.fixture("certificate.pem")
        #expect(throws: CryptoError(.unsupportedKey, "")) { try RSAPublicKey(pem: certificate) }
        #expect(throws: CryptoError(.unsupportedKey, "")) { try P256SigningKey(pkcs8PEM: certificate) }
        let pem = try P256SigningKey.generate().pkcs8PEM
        #expect(throws: CryptoError(.invalidPEM, "")) { try P256SigningKey(pkcs8PEM: pem + pem) }
        #expect(throws: CryptoError(.invalidPEM, "")) { try P256SigningKey(pkcs8PEM: pem + certificate) }
    }

    @Test("PEM layout: surrounding whitespace, CRLF, one long line, SEC 1 with EC PARAMETERS, PKCS #1")
    func pemLayouts() throws {
        let key = try P256SigningKey.generate()
        let pem = key.pkcs8PEM
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        let variants = [
            "\n\n  \t" + pem + "\n \n",
            pem.replacingOccurrences(of: "\n", with: "\r\n"),
            Self.oneLineBody(pem),
            String(pem.dropLast()),
        ]
        for variant in variants {
            let reloaded = try P256SigningKey(pkcs8PEM: variant)
            #expect(reloaded.publicKey.x == key.publicKey.x && reloaded.publicKey.y == key.publicKey.y)
        }
        let sec1 = try P256SigningKey(pkcs8PEM: try Self.fixture("p256-sec1.pem"))
        #expect(try P256SigningKey(pkcs8PEM: sec1.pkcs8PEM).publicKey.x == sec1.publicKey.x)
        let pkcs1 = try RSAPrivateKey(pem: try Self.fixture("rsa-2048-pkcs1.pem"))
        #expect(pkcs1.publicKey.bitCount == 2048)
        #expect(pkcs1.pkcs8PEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(try RSAPrivateKey(pem: pkcs1.pkcs8PEM).publicKey.modulus == pkcs1.publicKey.modulus)
    }

    /// `pem` with its base64 body joined into a single line.
    static func oneLineBody(_ pem: String) -> String {
        let lines = pem.split(separator: "\n")
        let body = lines.dropFirst().dropLast().joined()
        return "\(lines.first ?? "")\n\(body)\n\(lines.last ?? "")\n"
    }

    // MARK: Redaction

    @Test("secrets and private keys print as redactions")
    func redaction() throws {
        let secret = SecretBytes(Array("hunter2-hunter2".utf8))
        #expect(secret.description == "[redacted]")
        #expect(secret.debugDescription == "[redacted]")
        #expect("\(secret)" == "[redacted]")
        #expect(String(reflecting: secret) == "[redacted]")
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains("hunter2"))
        #expect(Mirror(reflecting: secret).children.isEmpty)

        let p256 = try P256SigningKey.generate()
        #expect("\(p256)" == "P256SigningKey([redacted])")
        var dumpedKey = ""
        dump(p256, to: &dumpedKey)
        #expect(!dumpedKey.contains("BEGIN"))
        #expect(Mirror(reflecting: p256).children.isEmpty)
    }

    @Test("errors never carry key material")
    func errorsAreClean() throws {
        let pem = try Self.fixture("p384.pem")
        do {
            _ = try P256SigningKey(pkcs8PEM: pem)
            Issue.record("P-384 accepted")
        } catch {
            let body = pem.split(separator: "\n").dropFirst().first.map(String.init) ?? "?"
            #expect(!error.reason.contains(body))
            #expect(!error.description.contains(body))
            #expect(error.reason.contains("secp384r1"))
            #expect(error.file.hasSuffix("P256PublicKey.swift") && error.line > 0)
        }
    }
}
