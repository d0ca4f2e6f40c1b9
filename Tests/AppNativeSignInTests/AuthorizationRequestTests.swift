import AppNativeCore
import AppNativeHTTP
import AppNativeSignIn
import Testing

@Suite("Sign-in authorization and end-session requests")
struct AuthorizationRequestTests {
    @Test func authorizeURLCarriesTheFlowsParameters() {
        let attempt = SignInAttempt.start(returnPath: .root, now: 1_700_000_000)
        let request = AuthorizationRequest(
            authorizationEndpoint: "https://login.example/t/oauth2/v2.0/authorize", clientID: "client id",
            redirectURI: "https://app.example/.auth/callback", scopes: "openid profile email")
        let url = request.url(for: attempt)
        #expect(url.hasPrefix("https://login.example/t/oauth2/v2.0/authorize?client_id=client%20id&response_type=code&response_mode=query&"))
        #expect(url.contains("&redirect_uri=https%3A%2F%2Fapp.example%2F.auth%2Fcallback&"))
        #expect(url.contains("&scope=openid%20profile%20email&"))
        #expect(url.contains("&state=\(attempt.state)&"))
        #expect(url.contains("&nonce=\(attempt.nonce.revealed)&"))
        #expect(url.contains("&code_challenge=\(attempt.proofKey.challenge)&code_challenge_method=S256"))
        #expect(!url.contains(attempt.proofKey.verifier.revealed))
        let withQuery = AuthorizationRequest(authorizationEndpoint: "https://idp.example/authorize?p=b2c", clientID: "c", redirectURI: "r", scopes: "openid")
        #expect(withQuery.url(for: attempt).hasPrefix("https://idp.example/authorize?p=b2c&client_id=c&"))
    }

    @Test func endSessionURL() {
        let request = EndSessionRequest(
            endSessionEndpoint: "https://login.example/t/oauth2/v2.0/logout", clientID: "c",
            postLogoutRedirectURI: "https://app.example/.auth/signed-out")
        #expect(request.url == "https://login.example/t/oauth2/v2.0/logout?client_id=c&post_logout_redirect_uri=https%3A%2F%2Fapp.example%2F.auth%2Fsigned-out")
    }

    @Test func documentNavigationIgnoresTheMethod() {
        #expect(NavigationClassifier.isDocumentNavigation(headers: ["Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"]))
        #expect(!NavigationClassifier.isDocumentNavigation(headers: ["Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty", "Accept": "text/html"]))
        #expect(NavigationClassifier.isDocumentNavigation(headers: ["Accept": "text/html"]))
        #expect(!NavigationClassifier.isDocumentNavigation(headers: ["Accept": "*/*"]))
    }
}
