import AppNativeCore
import AppNativeSignIn
import Testing

@Suite("Sign-in callback parameters")
struct CallbackParametersTests {
    @Test func codeAndState() throws {
        guard case .code(let code, let state) = try CallbackParameters(target: "/.auth/callback?code=a%2Bb+c&state=S&session_state=x")
        else { Issue.record("not a code"); return }
        #expect(code.revealed == "a+b c")
        #expect(state == "S")
    }

    @Test func errors() throws {
        guard case .error(let failure, let state) = try CallbackParameters(target: "/cb?error=access_denied&error_description=x&state=S")
        else { Issue.record("not an error"); return }
        #expect(failure == .cancelled)
        #expect(state == "S")
    }

    @Test(arguments: [
        "/cb", "/cb?code=x", "/cb?state=S", "/cb?code=&state=S", "/cb?code=x&state=", "/cb?code=x&code=y&state=S",
        "/cb?code=x&state=S&state=T", "/cb?code=%zz&state=S", "/cb?code=x&state=%ff",
    ])
    func malformed(target: String) {
        #expect(throws: SignInFailure.callbackMalformed) { try CallbackParameters(target: target) }
    }

    /// RFC 9207: an `iss` in the response must be the discovered issuer; none is fine.
    @Test func issuerIdentification() throws {
        let issuer = "https://login.example/t/v2.0"
        #expect(throws: SignInFailure.issuerMismatch) {
            try CallbackParameters(target: "/cb?code=x&state=S&iss=https%3A%2F%2Fevil.example", expectedIssuer: issuer)
        }
        #expect(try CallbackParameters(target: "/cb?code=x&state=S&iss=https%3A%2F%2Flogin.example%2Ft%2Fv2.0", expectedIssuer: issuer).state == "S")
        #expect(try CallbackParameters(target: "/cb?code=x&state=S", expectedIssuer: issuer).state == "S")
        #expect(throws: SignInFailure.callbackMalformed) {
            try CallbackParameters(target: "/cb?code=x&state=S&iss=a&iss=b", expectedIssuer: issuer)
        }
    }

    /// RFC 9207 §2.4: when discovery advertises `authorization_response_iss_parameter_supported`,
    /// a response without `iss` is refused, error responses included; with it, it must still match.
    @Test func issuerRequiredWhenAdvertised() throws {
        let issuer = "https://login.example/t/v2.0"
        #expect(throws: SignInFailure.issuerMissing) {
            try CallbackParameters(target: "/cb?code=x&state=S", expectedIssuer: issuer, requiresIssuer: true)
        }
        #expect(throws: SignInFailure.issuerMissing) {
            try CallbackParameters(target: "/cb?error=access_denied&state=S", expectedIssuer: issuer, requiresIssuer: true)
        }
        #expect(throws: SignInFailure.issuerMismatch) {
            try CallbackParameters(target: "/cb?code=x&state=S&iss=https%3A%2F%2Fevil.example", expectedIssuer: issuer, requiresIssuer: true)
        }
        let good = try CallbackParameters(
            target: "/cb?code=x&state=S&iss=https%3A%2F%2Flogin.example%2Ft%2Fv2.0", expectedIssuer: issuer, requiresIssuer: true)
        #expect(good.state == "S")
    }
}
