@testable import AppNativeAPNs
import AppNativeAuth
import AppNativeCore
import AppNativeCrypto
import AppNativeJSON
import AppNativeTesting
import Testing

/// Provider-token timing (contract/apns.md §2, §5) with a manual clock.
@Suite("Provider token")
struct ProviderTokenTests {
    @Test("machine: sign first, reuse for 50 minutes, sign again at 50")
    func reuse() {
        var machine = ProviderTokenMachine()
        #expect(machine.next(at: .seconds(0)) == .sign)
        machine.signed("t1", at: .seconds(0))
        #expect(machine.next(at: .seconds(1)) == .use("t1"))
        #expect(machine.next(at: .seconds(50 * 60 - 1)) == .use("t1"))
        #expect(machine.next(at: .seconds(50 * 60)) == .sign)
        machine.signed("t2", at: .seconds(50 * 60))
        #expect(machine.next(at: .seconds(50 * 60 + 1)) == .use("t2"))
        #expect(machine.signatureCount == 2)
    }

    @Test("machine: a rejected token is replaced only once it is 20 minutes old")
    func rejection() {
        var machine = ProviderTokenMachine()
        machine.signed("t1", at: .seconds(100))
        machine.rejected("t1")
        #expect(machine.next(at: .seconds(100 + 60)) == .use("t1"))
        #expect(machine.next(at: .seconds(100 + 20 * 60 - 1)) == .use("t1"))
        #expect(machine.next(at: .seconds(100 + 20 * 60)) == .sign)
        machine.signed("t2", at: .seconds(100 + 20 * 60))
        #expect(machine.next(at: .seconds(100 + 20 * 60 + 1)) == .use("t2"))
    }

    @Test("machine: a rejection of an older token changes nothing")
    func staleRejection() {
        var machine = ProviderTokenMachine()
        machine.signed("t1", at: .seconds(0))
        machine.signed("t2", at: .seconds(3000))
        machine.rejected("t1")
        #expect(machine.next(at: .seconds(3000 + 20 * 60)) == .use("t2"))
    }

    @Test("source: ES256 token with kid, iss and iat, verified with the public key; reused until 50 min")
    func source() throws {
        let clock = ManualTimeSource(wallSeconds: 1_790_000_000.9)
        let key = try P256SigningKey(pkcs8PEM: try testKeyPEM())
        let source = ProviderTokenSource(key: key, keyID: "KEY1234567", teamID: "TEAM000001", timeSource: clock)
        let token = try source.token()
        let parts = token.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        let header = try JSONParser().parse(try #require(Base64URL.decode(parts[0]))).objectValue
        let claims = try JSONParser().parse(try #require(Base64URL.decode(parts[1]))).objectValue
        #expect(header == ["alg": "ES256", "kid": "KEY1234567"])
        #expect(claims == ["iss": "TEAM000001", "iat": 1_790_000_000])
        let signature = try #require(Base64URL.decode(parts[2]))
        #expect(key.publicKey.isValidSignature(rawRS: signature, for: Array((parts[0] + "." + parts[1]).utf8)))

        clock.advance(by: .seconds(49 * 60))
        #expect(try source.token() == token)
        #expect(source.ageSeconds == 49 * 60)
        clock.advance(by: .seconds(60))
        let renewed = try source.token()
        #expect(renewed != token)
        #expect(source.signatureCount == 2)

        source.reject(renewed)
        clock.advance(by: .seconds(19 * 60))
        #expect(try source.token() == renewed)
        clock.advance(by: .seconds(60))
        #expect(try source.token() != renewed)
        #expect(source.signatureCount == 3)
    }

    @Test("source: a burst of concurrent first sends signs once")
    func burst() async throws {
        let clock = ManualTimeSource(wallSeconds: 1_790_000_000)
        let source = ProviderTokenSource(
            key: try P256SigningKey(pkcs8PEM: try testKeyPEM()), keyID: "K", teamID: "T", timeSource: clock)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 { group.addTask { try source.token() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens.count == 1)
        #expect(source.signatureCount == 1)
    }
}
