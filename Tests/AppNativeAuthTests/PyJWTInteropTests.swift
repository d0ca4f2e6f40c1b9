import AppNativeAuth
import AppNativeCore
import AppNativeCrypto
import AppNativeJSON
import AppNativeTesting
import Foundation
import Testing

/// Interoperability with a client nobody here wrote: PyJWT (Debian python3-jwt).
@Suite("PyJWT interoperability")
struct PyJWTInteropTests {
    static let peer = ProcessRunner.repositoryRoot() + "/Tests/Peers/pyjwt_peer.py"

    static func pyjwt(_ arguments: [String]) async throws -> ProcessRunner.Output {
        try await ProcessRunner.run(ProcessRunner.python, [peer] + arguments)
    }

    @Test("Entra-shaped RS256 tokens minted by PyJWT are accepted")
    func entraTokensFromPyJWT() async throws {
        let fixture = try await EntraFixture()
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("pyjwt-\(UUID().uuidString).pem")
        try fixture.factory.key.pkcs8PEM.write(to: keyFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: keyFile) }
        let claims = try JSONSerialization.data(withJSONObject: fixture.claims(["name": "Zoë Müller-Łukasz"]))
        let minted = try await Self.pyjwt([
            "mint-entra", "--key-file", keyFile.path, "--kid", fixture.factory.keyID,
            "--claims", String(decoding: claims, as: UTF8.self),
        ])
        #expect(minted.status == 0, "\(minted.stderr)")
        let identity = try await fixture.verifier.verify(minted.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(identity.user.name == "Zoë Müller-Łukasz")
        #expect(identity.user.email == "ada@example.com")
    }

    @Test("cookies minted by PyJWT (the Python reference's format) are read")
    func cookiesFromPyJWT() async throws {
        let time = ManualTimeSource(wallSeconds: Date().timeIntervalSince1970)
        let codec = try SessionCookieTests.codec(time: time)
        var claims = SessionCookieTests.claims()
        claims["iat"] = Int(time.wallSeconds)
        claims["exp"] = Int(time.wallSeconds) + 600
        claims["name"] = "Zoë"
        let data = try JSONSerialization.data(withJSONObject: claims)
        let minted = try await Self.pyjwt(["mint-cookie", "--secret", SessionCookieTests.secret, "--claims", String(decoding: data, as: UTF8.self)])
        #expect(minted.status == 0, "\(minted.stderr)")
        let identity = try codec.identity(fromValue: minted.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(identity.user.objectID == SessionCookieTests.user.objectID)
        #expect(identity.user.name == "Zoë")
    }

    @Test("cookies issued here are read by PyJWT; a wrong secret is refused there too")
    func cookiesToPyJWT() async throws {
        let codec = try SessionCookieTests.codec(time: ManualTimeSource(wallSeconds: Date().timeIntervalSince1970))
        let value = codec.value(for: SessionCookieTests.user)
        let read = try await Self.pyjwt(["read-cookie", "--secret", SessionCookieTests.secret, "--cookie", value])
        #expect(read.status == 0, "\(read.stdout) \(read.stderr)")
        let claims = try #require(try JSONParser().parse(read.stdout.trimmingCharacters(in: .whitespacesAndNewlines)).objectValue)
        #expect(claims["sub"] == .string(SessionCookieTests.user.objectID))
        #expect(claims["email"] == .string("ada@example.com"))
        #expect(claims["tid"] == .string(SessionCookieTests.tenant))
        #expect(claims["name"] == .string("Zoë Müller-Łukasz"))
        #expect(claims["aud"] == .string("bmsdna-app-native-session"))
        let wrong = try await Self.pyjwt(["read-cookie", "--secret", String(repeating: "y", count: 40), "--cookie", value])
        #expect(wrong.status == 1)
    }
}
