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

    @Test("cookies minted by PyJWT are read: this deployment's shape always, the Python reference's (aud constant alone) with the migration switch")
    func cookiesFromPyJWT() async throws {
        let time = ManualTimeSource(wallSeconds: Date().timeIntervalSince1970)
        func minted(aud: Any) async throws -> String {
            var claims = SessionCookieTests.claims(["aud": aud])
            claims["iat"] = Int(time.wallSeconds)
            claims["exp"] = Int(time.wallSeconds) + 600
            claims["name"] = "Zoë"
            let data = try JSONSerialization.data(withJSONObject: claims)
            let output = try await Self.pyjwt(["mint-cookie", "--secret", SessionCookieTests.secret, "--claims", String(decoding: data, as: UTF8.self)])
            #expect(output.status == 0, "\(output.stderr)")
            return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let bound = try await minted(aud: [SessionCookieCodec.audience, SessionCookieTests.deployment])
        let identity = try SessionCookieTests.codec(time: time).identity(fromValue: bound)
        #expect(identity.user.objectID == SessionCookieTests.user.objectID)
        #expect(identity.user.name == "Zoë")
        let reference = try await minted(aud: SessionCookieCodec.audience)
        #expect(throws: AuthError(.deployment, "")) { try SessionCookieTests.codec(time: time).identity(fromValue: reference) }
        let migrating = try SessionCookieTests.codec(time: time, acceptsReferenceCookies: true)
        #expect(try migrating.identity(fromValue: reference).user.name == "Zoë")
    }

    @Test("cookies issued here (aud: the constant and this deployment) are read by PyJWT; a wrong secret is refused there too")
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
        // An array holding the reference's constant: PyJWT (and so the reference) accepts it.
        #expect(claims["aud"] == .array([.string("bmsdna-app-native-session"), .string(SessionCookieTests.deployment)]))
        let wrong = try await Self.pyjwt(["read-cookie", "--secret", String(repeating: "y", count: 40), "--cookie", value])
        #expect(wrong.status == 1)
    }
}
