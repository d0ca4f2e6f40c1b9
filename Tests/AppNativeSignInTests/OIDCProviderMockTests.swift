import AppNativeAuth
import AppNativeClient
import AppNativeCore
import AppNativeCrypto
import AppNativeHTTP
import AppNativeJSON
import AppNativeSignIn
import AppNativeTesting
import Foundation
import Testing

/// The provider client against an OpenID provider written elsewhere: oidc-provider-mock from PyPI
/// (pinned in scripts/install-python-tools.sh, started by Tests/Peers/oidc_mock.py).
@Suite("oidc-provider-mock interop")
struct OIDCProviderMockTests {
    static let redirectURI = "http://127.0.0.1:9/.auth/callback"

    static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    struct Mock {
        let child: ChildProcess
        let discoveryURL: String
        let issuer: String
    }

    static func start() throws -> Mock {
        let python = repositoryRoot + "/.build/python-tools/bin/python"
        try #require(FileManager.default.isExecutableFile(atPath: python), "run scripts/install-python-tools.sh (make test does)")
        let child = try ChildProcess([python, repositoryRoot + "/Tests/Peers/oidc_mock.py"], stderrFile: "/dev/null")
        guard let line = child.readLine(), let ready = (try? JSONParser().parse(line))?.objectValue,
            let discoveryURL = ready["discovery_url"]?.stringValue, let issuer = ready["issuer"]?.stringValue
        else {
            child.kill()
            throw ChildProcess.Failure(description: "oidc_mock.py printed no ready line")
        }
        return Mock(child: child, discoveryURL: discoveryURL, issuer: issuer)
    }

    @Test func discoveryCodeRedemptionAndTheIDToken() async throws {
        let mock = try Self.start()
        defer { mock.child.kill() }
        // Its document has no code_challenge_methods_supported, like Entra's: accepted.
        let fetcher = try HTTPProviderMetadataFetcher(discoveryURL: mock.discoveryURL)
        #expect(fetcher.expectedIssuer == mock.issuer)
        let metadata = try await fetcher.fetchMetadata()
        #expect(metadata.issuer == mock.issuer)
        #expect(metadata.endSessionEndpoint != nil)

        // Its authorize page posts the chosen `sub` back to the authorize URL, query included.
        let pkce = BrowserlessClient.pkce()
        let request: [(name: String, value: String)] = [
            ("client_id", "appnative-web"), ("redirect_uri", Self.redirectURI), ("response_type", "code"),
            ("scope", "openid profile email"), ("state", "st-1"), ("nonce", "nonce-42"),
            ("code_challenge", pkce.challenge), ("code_challenge_method", "S256"),
        ]
        let authorizeURL = metadata.authorizationEndpoint + "?" + String(decoding: FormURLEncoding.serialize(request), as: UTF8.self)
        let page = try await BrowserlessClient.get(authorizeURL)
        #expect(page.status == 200)
        #expect(BrowserlessClient.body(page).contains("value=\"mock-zoe\""))
        let chosen = try await BrowserlessClient.postForm(authorizeURL, [("sub", "mock-zoe")])
        #expect(chosen.status == 302)
        let answer = BrowserlessClient.query(BrowserlessClient.location(chosen))
        #expect(answer["state"] == "st-1")
        let code = try #require(answer["code"])

        let client = try TokenEndpointClient(
            tokenEndpoint: metadata.tokenEndpoint, clientID: "appnative-web", credential: .secret(Secret("any-secret")),
            scope: "openid profile email")
        let redemption = CodeRedemption(code: Secret(code), codeVerifier: Secret(pkce.verifier), redirectURI: Self.redirectURI)
        let answered = try await client.redeem(redemption)

        // Its key set holds one key with a kid; its ID tokens carry no kid and an aud array.
        let keys = try JSONWebKeySet.parse(try await BrowserlessClient.get(metadata.jwksURI).body)
        let key = try #require(keys.keys.count == 1 ? keys.keys.values.first : nil)
        let policy = JWTPolicy(
            algorithm: .rs256, issuers: [metadata.issuer], audiences: ["appnative-web"], requiredClaims: ["nonce"],
            leeway: .seconds(60), maxLifetime: .seconds(86400), requiresKeyID: false)
        let token = try UnverifiedJWT(answered.idToken.revealed, policy: policy)
        #expect(token.keyID == nil)
        let claims = try token.verify(with: .rsa(key), policy: policy, now: SystemTimeSource().wallSeconds)
        #expect(claims["aud"]?.arrayValue?.compactMap(\.stringValue) == ["appnative-web"])
        #expect(claims.string("nonce") == "nonce-42")
        #expect(claims.string("tid") == "d0d0d0d0-0000-4000-8000-00000000de01")
        #expect(claims.string("oid") == "44444444-5555-4666-8777-888888888888")
        #expect(claims.string("email") == "zoe.mock@example.com")
        #expect(claims.string("name") == "Zoë Mock")

        // Codes are single-use there too.
        await #expect(throws: SignInProviderError.refused(status: 400, oauthError: "invalid_grant")) {
            try await client.redeem(redemption)
        }
    }
}
