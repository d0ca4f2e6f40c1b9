import AppNativeSignIn
import Testing

@Suite("Sign-in failures")
struct SignInFailureTests {
    static let all: [SignInFailure] = [
        .cancelled, .providerError(code: "invalid_request"), .providerError(code: "server_error"), .stateMissing, .stateExpired,
        .stateInvalid, .stateReplayed, .callbackMalformed, .issuerMismatch, .redemptionRefused(oauthError: "invalid_grant"),
        .providerUnavailable(reason: "timeout"), .clientCredential(reason: "unreadable"), .notReady,
        .tokenInvalid(check: "nonce"), .wrongTenant, .notAllowed, .issuerMissing, .rateLimited(retryAfterSeconds: 7),
        .busy(retryAfterSeconds: 30),
    ]

    @Test func everyReasonHasACodeAStatusAndASentence() {
        var codes = Set<String>()
        for failure in Self.all {
            #expect(SignInFailure.allReasonCodes.contains(failure.reasonCode), "\(failure)")
            #expect((400..<600).contains(failure.status))
            #expect(!failure.explanation.isEmpty)
            codes.insert(failure.reasonCode)
        }
        #expect(codes == Set(SignInFailure.allReasonCodes))
    }

    @Test func fiveHundredsOnlyWhenTheProviderOrSetupFailed() {
        for failure in Self.all {
            switch failure {
            case .providerUnavailable, .clientCredential, .notReady, .busy, .providerError(code: "server_error"):
                #expect(failure.status >= 500, "\(failure.reasonCode)")
            default:
                #expect(failure.status < 500, "\(failure.reasonCode)")
            }
        }
    }

    @Test func providerErrorsMap() {
        #expect(SignInFailure(.unreachable(reason: "timeout")).reasonCode == "provider_unavailable")
        #expect(SignInFailure(.malformed(reason: "no id_token")).reasonCode == "provider_unavailable")
        #expect(SignInFailure(.refused(status: 400, oauthError: "invalid_grant")) == .redemptionRefused(oauthError: "invalid_grant"))
        #expect(SignInFailure(.refused(status: 503, oauthError: nil)).status == 502)
        #expect(SignInFailure(.credential(reason: "x")).reasonCode == "client_credential")
    }

    @Test func callbackErrors() {
        #expect(SignInFailure.fromCallbackError("access_denied") == .cancelled)
        #expect(SignInFailure.fromCallbackError("login_required") == .providerError(code: "login_required"))
        // Anything that is not a plain token is not kept for the log.
        #expect(SignInFailure.fromCallbackError("<script>") == .providerError(code: nil))
        #expect(SignInFailure.fromCallbackError(String(repeating: "a", count: 65)) == .providerError(code: nil))
    }

    @Test func pagesCarryNothingFromTheRequest() {
        for failure in Self.all {
            let page = String(decoding: SignInPage.failure(failure, loginPath: "/.auth/login"), as: UTF8.self)
            #expect(page.contains("Sign in again"))
            #expect(page.contains("href=\"/.auth/login\""))
            #expect(page.contains(failure.reasonCode))
            #expect(!page.contains("timeout") && !page.contains("invalid_grant") && !page.contains("unreadable"))
        }
        let signedOut = String(decoding: SignInPage.signedOut(loginPath: "/.auth/login"), as: UTF8.self)
        #expect(signedOut.contains("signed out"))
    }

    @Test func pageEscapesItsLink() {
        let page = String(decoding: SignInPage.failure(.cancelled, loginPath: "/x\"><script>"), as: UTF8.self)
        #expect(!page.contains("<script>"))
    }

    @Test("the limits' pages say when to come back: 429 and 503 with Retry-After seconds and their own title")
    func limitsCarryRetryAfter() {
        #expect(SignInFailure.rateLimited(retryAfterSeconds: 7).status == 429)
        #expect(SignInFailure.rateLimited(retryAfterSeconds: 7).retryAfterSeconds == 7)
        #expect(SignInFailure.busy(retryAfterSeconds: 30).status == 503)
        #expect(SignInFailure.busy(retryAfterSeconds: 30).retryAfterSeconds == 30)
        #expect(SignInFailure.stateMissing.retryAfterSeconds == nil)
        let page = String(decoding: SignInPage.failure(.rateLimited(retryAfterSeconds: 7), loginPath: "/.auth/login"), as: UTF8.self)
        #expect(page.contains("<title>Too many sign-in attempts</title>"))
        #expect(page.contains("Reason: rate_limited"))
        #expect(SignInFailure.issuerMissing.status == 400)
    }
}
