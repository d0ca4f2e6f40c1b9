import AppNativeAuth
import AppNativeClient
import AppNativeCore
import AppNativeCrypto
import AppNativeJSON
import AppNativeSignIn
import Testing

@Suite("Sign-in provider errors")
struct SignInProviderErrorTests {
    @Test func reasonCodesNameTheFailureClass() {
        #expect(SignInProviderError.unreachable(reason: "timeout").reasonCode == "provider_unreachable")
        #expect(SignInProviderError.refused(status: 400, oauthError: "invalid_grant").reasonCode == "provider_refused")
        #expect(SignInProviderError.malformed(reason: "no id_token").reasonCode == "provider_malformed")
        #expect(SignInProviderError.credential(reason: "key unreadable").reasonCode == "client_credential")
    }
}
