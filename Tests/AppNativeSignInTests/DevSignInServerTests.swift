import AppNativeAuth
import AppNativeClient
import AppNativeCore
import AppNativeCrypto
import AppNativeDevPeers
import AppNativeHTTP
import AppNativeJSON
import AppNativeServer
import AppNativeSignIn
import Foundation
import Testing

/// The dev identity provider end to end, through the provider client the gateway uses.
@Suite("Dev identity provider sign-in")
struct DevSignInServerTests {
    static let redirectURI = "http://127.0.0.1:9/.auth/callback"

    static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    struct Started {
        let server: DevSignInServer
        let provider: DevIdentityProvider
        let metadata: ProviderMetadata
    }

    static func start() async throws -> Started {
        let provider = try DevIdentityProvider.load(repositoryRoot: repositoryRoot)
        let server = try DevSignInServer(provider: provider, listenAddress: try SocketAddress(parsing: "127.0.0.1:0"))
        server.register(redirectURI: redirectURI)
        server.start()
        let metadata = try await HTTPProviderMetadataFetcher(discoveryURL: server.discoveryURL).fetchMetadata()
        return Started(server: server, provider: provider, metadata: metadata)
    }

    static func authorizeRequest(
        _ metadata: ProviderMetadata, challenge: String, state: String = "state-1", nonce: String = "nonce-1",
        redirectURI: String = redirectURI, dropping: String? = nil
    ) -> [(name: String, value: String)] {
        let pairs: [(name: String, value: String)] = [
            ("client_id", DevIdentityProvider.signInClientID), ("redirect_uri", redirectURI), ("response_type", "code"),
            ("response_mode", "query"), ("scope", "openid profile email"), ("state", state), ("nonce", nonce),
            ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ]
        return pairs.filter { $0.name != dropping }
    }

    static func authorizeURL(_ metadata: ProviderMetadata, _ pairs: [(name: String, value: String)]) -> String {
        metadata.authorizationEndpoint + "?" + String(decoding: FormURLEncoding.serialize(pairs), as: UTF8.self)
    }

    /// Chooses `user` on the sign-in page and returns the redirect's query.
    static func signIn(_ started: Started, as user: String, challenge: String, nonce: String = "nonce-1") async throws -> [String: String] {
        let request = authorizeRequest(started.metadata, challenge: challenge, nonce: nonce)
        let page = try await BrowserlessClient.get(authorizeURL(started.metadata, request))
        #expect(page.status == 200)
        #expect(BrowserlessClient.body(page).contains("value=\"\(user)\""))
        let chosen = try await BrowserlessClient.postForm(started.metadata.authorizationEndpoint, request + [("user", user)])
        #expect(chosen.status == 302)
        let location = try #require(BrowserlessClient.location(chosen))
        #expect(location.hasPrefix(redirectURI + "?"))
        return BrowserlessClient.query(location)
    }

    static func client(_ started: Started, secret: String = DevIdentityProvider.signInClientSecret) throws -> TokenEndpointClient {
        try TokenEndpointClient(
            tokenEndpoint: started.metadata.tokenEndpoint, clientID: DevIdentityProvider.signInClientID, credential: .secret(Secret(secret)),
            scope: "openid profile email")
    }

    static func redemption(_ code: String?, _ verifier: String) -> CodeRedemption {
        CodeRedemption(code: Secret(code ?? ""), codeVerifier: Secret(verifier), redirectURI: redirectURI)
    }

    @Test func discoveryNamesItsOwnEndpoints() async throws {
        let started = try await Self.start()
        defer { started.server.shutdown() }
        #expect(started.metadata.issuer == started.server.issuer)
        #expect(started.metadata.issuer.hasPrefix("http://127.0.0.1:"))
        #expect(started.metadata.tokenEndpoint.hasPrefix(started.server.issuer + "/"))
        #expect(started.metadata.endSessionEndpoint != nil)
    }

    @Test func codeFlowIssuesAnIDTokenTheDevKeySetVerifies() async throws {
        let started = try await Self.start()
        defer { started.server.shutdown() }
        let pkce = BrowserlessClient.pkce()
        let answer = try await Self.signIn(started, as: "zoe", challenge: pkce.challenge, nonce: "n-0123")
        #expect(answer["state"] == "state-1")
        let answered = try await Self.client(started).redeem(Self.redemption(answer["code"], pkce.verifier))

        // Keys from the provider's jwks_uri, the same set the gateway's dev configuration loads.
        let keys = try JSONWebKeySet.parse(try await BrowserlessClient.get(started.metadata.jwksURI).body)
        #expect(keys.keys.count == 1)
        let key = try #require(keys.keys[DevIdentityProvider.keyID])
        let policy = JWTPolicy(
            algorithm: .rs256, issuers: [started.metadata.issuer], audiences: [DevIdentityProvider.signInClientID],
            requiredClaims: ["nonce", "tid", "oid"], leeway: .seconds(60), maxLifetime: .seconds(86400), requiresKeyID: true)
        let token = try UnverifiedJWT(answered.idToken.revealed, policy: policy)
        let claims = try token.verify(with: .rsa(key), policy: policy, now: SystemTimeSource().wallSeconds)
        #expect(claims.string("nonce") == "n-0123")
        #expect(claims.string("tid") == DevIdentityProvider.tenantID)
        #expect(claims.string("oid") == DevIdentityProvider.User().objectID)
        #expect(claims.string("email") == DevIdentityProvider.User().email)
        #expect(claims.string("preferred_username") == DevIdentityProvider.User().email)
        #expect(claims.string("name") == "Zoë Müller-Łukasz")
        #expect(claims.string("aud") == DevIdentityProvider.signInClientID)
    }

    @Test func theOtherTenantsUserGetsATokenOfTheOtherTenant() async throws {
        let started = try await Self.start()
        defer { started.server.shutdown() }
        let pkce = BrowserlessClient.pkce()
        let answer = try await Self.signIn(started, as: "eve", challenge: pkce.challenge)
        let answered = try await Self.client(started).redeem(Self.redemption(answer["code"], pkce.verifier))
        let policy = JWTPolicy(
            algorithm: .rs256, issuers: nil, audiences: nil, leeway: .seconds(60), maxLifetime: nil, requiresKeyID: true)
        let claims = try UnverifiedJWT(answered.idToken.revealed, policy: policy)
            .verify(with: .rsa(started.provider.signingKey.publicKey), policy: policy, now: SystemTimeSource().wallSeconds)
        #expect(claims.string("tid") == DevSignInUser.otherTenantID)
    }

    @Test func aCodeIsSingleUseAndBoundToItsVerifier() async throws {
        let started = try await Self.start()
        defer { started.server.shutdown() }
        let client = try Self.client(started)
        let pkce = BrowserlessClient.pkce()
        let first = try await Self.signIn(started, as: "zoe", challenge: pkce.challenge)
        _ = try await client.redeem(Self.redemption(first["code"], pkce.verifier))
        await #expect(throws: SignInProviderError.refused(status: 400, oauthError: "invalid_grant")) {
            try await client.redeem(Self.redemption(first["code"], pkce.verifier))
        }

        let second = try await Self.signIn(started, as: "zoe", challenge: pkce.challenge)
        await #expect(throws: SignInProviderError.refused(status: 400, oauthError: "invalid_grant")) {
            try await client.redeem(Self.redemption(second["code"], BrowserlessClient.pkce().verifier))
        }
        // A refused presentation used the code up: the right verifier is too late now.
        await #expect(throws: SignInProviderError.refused(status: 400, oauthError: "invalid_grant")) {
            try await client.redeem(Self.redemption(second["code"], pkce.verifier))
        }

        let third = try await Self.signIn(started, as: "zoe", challenge: pkce.challenge)
        await #expect(throws: SignInProviderError.refused(status: 400, oauthError: "invalid_grant")) {
            try await client.redeem(CodeRedemption(code: Secret(third["code"] ?? ""), codeVerifier: Secret(pkce.verifier), redirectURI: Self.redirectURI + "x"))
        }
    }

    @Test func theClientSecretIsChecked() async throws {
        let started = try await Self.start()
        defer { started.server.shutdown() }
        let pkce = BrowserlessClient.pkce()
        let answer = try await Self.signIn(started, as: "zoe", challenge: pkce.challenge)
        await #expect(throws: SignInProviderError.refused(status: 401, oauthError: "invalid_client")) {
            try await Self.client(started, secret: "wrong").redeem(Self.redemption(answer["code"], pkce.verifier))
        }
        // Client authentication failed before the code was looked at: it still redeems.
        _ = try await Self.client(started).redeem(Self.redemption(answer["code"], pkce.verifier))
    }

    @Test func authorizeRequestsAreValidated() async throws {
        let started = try await Self.start()
        defer { started.server.shutdown() }
        let challenge = BrowserlessClient.pkce().challenge
        // An unregistered redirect URI is never redirected to (RFC 6749 §4.1.2.1).
        let foreign = try await BrowserlessClient.get(
            Self.authorizeURL(started.metadata, Self.authorizeRequest(started.metadata, challenge: challenge, redirectURI: "https://evil.example/cb")))
        #expect(foreign.status == 400)
        #expect(BrowserlessClient.location(foreign) == nil)

        for (dropped, error) in [("code_challenge", "invalid_request"), ("code_challenge_method", "invalid_request"), ("response_type", "unsupported_response_type"), ("scope", "invalid_scope")] {
            let response = try await BrowserlessClient.get(
                Self.authorizeURL(started.metadata, Self.authorizeRequest(started.metadata, challenge: challenge, dropping: dropped)))
            #expect(response.status == 302, "\(dropped)")
            let answer = BrowserlessClient.query(BrowserlessClient.location(response))
            #expect(answer["error"] == error, "\(dropped)")
            #expect(answer["state"] == "state-1", "\(dropped)")
            #expect(answer["code"] == nil)
        }

        let cancelled = try await BrowserlessClient.postForm(
            started.metadata.authorizationEndpoint, Self.authorizeRequest(started.metadata, challenge: challenge) + [("cancel", "1")])
        let answer = BrowserlessClient.query(BrowserlessClient.location(cancelled))
        #expect(answer["error"] == "access_denied")
        #expect(answer["state"] == "state-1")
    }

    @Test func endSessionRedirectsOnlyToTheClientsOrigin() async throws {
        let started = try await Self.start()
        defer { started.server.shutdown() }
        let endSession = try #require(started.metadata.endSessionEndpoint)
        let back = try await BrowserlessClient.get(endSession + "?post_logout_redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fsigned-out&state=s9")
        #expect(back.status == 302)
        #expect(BrowserlessClient.location(back) == "http://127.0.0.1:9/signed-out?state=s9")
        let foreign = try await BrowserlessClient.get(endSession + "?post_logout_redirect_uri=https%3A%2F%2Fevil.example%2F")
        #expect(foreign.status == 200)
        #expect(BrowserlessClient.location(foreign) == nil)
    }
}
