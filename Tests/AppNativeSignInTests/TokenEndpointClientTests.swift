import AppNativeAuth
import AppNativeClient
import AppNativeCore
import AppNativeCrypto
import AppNativeJSON
import AppNativeSignIn
import Testing

/// The token endpoint client against an in-process loopback peer over libcurl, one misbehaviour per path.
@Suite("Token endpoint answers")
struct TokenEndpointClientTests {
    static func redeem(_ path: String, on peer: ScriptedTokenEndpoint, timeout: Duration = .seconds(10)) async throws(SignInProviderError)
        -> TokenEndpointAnswer
    {
        let client: TokenEndpointClient
        do {
            client = try TokenEndpointClient(
                tokenEndpoint: peer.url(path), clientID: "client-1", credential: .secret(Secret("secret-value")), timeout: timeout)
        } catch {
            throw .malformed(reason: "test setup: \(error)")
        }
        return try await client.redeem(
            CodeRedemption(code: Secret("code-value"), codeVerifier: Secret("verifier-value"), redirectURI: "http://127.0.0.1:1/cb"))
    }

    @Test func answers() async throws {
        let peer = try ScriptedTokenEndpoint()
        defer { peer.stop() }
        let good = try await Self.redeem("/good", on: peer)
        #expect(good.idToken.revealed == ScriptedTokenEndpoint.idToken)
        #expect(peer.receivedBodies.first?.contains("client_secret=secret-value") == true)

        let cases: [(path: String, expected: SignInProviderError)] = [
            ("/error", .refused(status: 400, oauthError: "invalid_grant")),
            ("/error-not-a-token", .refused(status: 400, oauthError: nil)),
            ("/server-error", .refused(status: 503, oauthError: nil)),
            ("/redirect", .refused(status: 302, oauthError: nil)),
            ("/not-json", .malformed(reason: "token endpoint answer is not a JSON object")),
            ("/no-id-token", .malformed(reason: "token endpoint answer has no id_token")),
            ("/id-token-not-string", .malformed(reason: "token endpoint answer's id_token is not a non-empty string")),
            ("/huge", .malformed(reason: "token endpoint answer larger than the size limit")),
        ]
        for (path, expected) in cases {
            do {
                _ = try await Self.redeem(path, on: peer)
                Issue.record("\(path): accepted")
            } catch {
                #expect(error == expected, "\(path)")
                // Nothing the provider said but the plain error code, and nothing the client sent.
                let text = "\(error)"
                for secret in ["AADSTS", "zoe@example.com", "script", "secret-value", "code-value", "verifier-value"] {
                    #expect(!text.contains(secret), "\(path): \(text)")
                }
            }
        }
    }

    @Test func aHangingEndpointTimesOut() async throws {
        let peer = try ScriptedTokenEndpoint()
        defer { peer.stop() }
        await #expect(throws: SignInProviderError.unreachable(reason: "token endpoint answer: timeout")) {
            try await Self.redeem("/hang", on: peer, timeout: .seconds(1))
        }
    }

    @Test func aClosedPortIsUnreachable() async throws {
        let peer = try ScriptedTokenEndpoint()
        let url = peer.url("/good")
        peer.stop()
        let client = try TokenEndpointClient(tokenEndpoint: url, clientID: "c", credential: .secret(Secret("s")))
        do {
            _ = try await client.redeem(CodeRedemption(code: Secret("c"), codeVerifier: Secret("v"), redirectURI: "http://127.0.0.1:1/cb"))
            Issue.record("a closed port answered")
        } catch {
            #expect(error.reasonCode == "provider_unreachable")
        }
    }

    @Test func endpointMustBeHTTPSOrLoopback() {
        #expect(throws: ClientError(.insecureScheme, reason: "")) {
            try TokenEndpointClient(tokenEndpoint: "http://login.example.com/token", clientID: "c", credential: .secret(Secret("s")))
        }
    }
}
