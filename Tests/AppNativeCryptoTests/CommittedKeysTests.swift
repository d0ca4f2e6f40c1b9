import AppNativeCrypto
import Foundation
import Testing

/// The dev and test keys committed under `keys/` load under the same policy the gateway applies.
/// They live in the repository (not in this bundle) because `make run` and the integration
/// tests use them too; a missing file fails here.
@Suite("Committed dev and test keys")
struct CommittedKeysTests {
    /// `<repo>/keys`, found from this source file's path (Tests/AppNativeCryptoTests/<file>).
    static let keysDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("keys", isDirectory: true)

    static func text(_ relativePath: String) throws -> String {
        let url = keysDirectory.appendingPathComponent(relativePath)
        #expect(FileManager.default.fileExists(atPath: url.path), "missing \(url.path)")
        return try String(contentsOf: url, encoding: .utf8)
    }

    @Test("the dev identity provider's RSA key is 2048-bit PKCS #8 with e = 65537")
    func entraDevKey() throws {
        let pem = try Self.text("dev/entra-dev-rsa.pem")
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let key = try RSAPrivateKey(pem: pem)
        #expect(key.publicKey.bitCount == 2048 && key.publicKey.exponent == [0x01, 0x00, 0x01])
    }

    @Test(
        "P-256 keys are PKCS #8 and sign",
        arguments: [
            "dev/assertion-dev-p256.pem", "dev/apns-dev.p8", "test/apns-test.p8", "test/ca-key.pem",
            "test/localhost-key.pem",
        ]
    )
    func p256Keys(_ path: String) throws {
        let pem = try Self.text(path)
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"), "\(path)")
        let key = try P256SigningKey(pkcs8PEM: pem)
        let signature = try key.signature(for: Array(path.utf8))
        #expect(key.publicKey.isValidSignature(rawRS: signature, for: Array(path.utf8)))
    }

    @Test("the dev session secret is 64 lower-case hex characters")
    func sessionSecret() throws {
        let text = try Self.text("dev/session-secret.txt").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(text.count == 64)
        #expect(text.allSatisfy { "0123456789abcdef".contains($0) })
    }

    @Test("every dev and test key is distinct")
    func distinctKeys() throws {
        let paths = [
            "dev/entra-dev-rsa.pem", "dev/assertion-dev-p256.pem", "dev/apns-dev.p8", "test/apns-test.p8",
            "test/ca-key.pem", "test/localhost-key.pem",
        ]
        let contents = try paths.map { try Self.text($0) }
        #expect(Set(contents).count == paths.count)
    }
}
