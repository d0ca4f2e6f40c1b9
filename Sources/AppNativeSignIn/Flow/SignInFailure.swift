/// Why a browser sign-in did not end signed in. Each case has a reason code for logs and the
/// `appnative_signin_failures_total` metric, a status, and a plain sentence for the page; none carries a code,
/// a token, a claim value or an email.
public enum SignInFailure: Error, Sendable, Equatable {
    /// The user cancelled at the provider (`error=access_denied`).
    case cancelled
    /// The provider redirected back with another `error` (RFC 6749 §4.1.2.1); the code is kept
    /// when it is a plain token, for the log.
    case providerError(code: String?)
    /// No state cookie for the callback's `state` (expired and dropped by the browser, another
    /// browser, cookies blocked, or a callback nobody started here: login CSRF).
    case stateMissing
    /// The state cookie's time ran out.
    case stateExpired
    /// The state cookie's MAC does not verify, its content is broken, or its `state` differs.
    case stateInvalid
    /// This state was already used for a callback.
    case stateReplayed
    /// The callback carried no `code` or no `state`, or one of them twice.
    case callbackMalformed
    /// The callback's `iss` (RFC 9207) names another provider than the one discovered (mix-up).
    case issuerMismatch
    /// The callback carries no `iss` although discovery advertises
    /// `authorization_response_iss_parameter_supported` (RFC 9207 §2.4).
    case issuerMissing
    /// The token endpoint refused the code (`invalid_grant` and the like).
    case redemptionRefused(oauthError: String?)
    /// The provider could not be reached or answered what is not a token response.
    case providerUnavailable(reason: String)
    /// The client credential could not be produced (a configuration problem on our side).
    case clientCredential(reason: String)
    /// Discovery or the provider's keys have not loaded yet.
    case notReady
    /// The ID token failed a check; `check` names which (`signature`, `audience`, `nonce`, …).
    case tokenInvalid(check: String)
    /// The ID token is for a user of another tenant.
    case wrongTenant
    /// The access policy or the authorization hook denies this user.
    case notAllowed
    /// This client address started (or redeemed) more sign-ins than its limit allows
    /// (`SIGN_IN_RATE_LIMIT`, `SIGN_IN_REDEEM_RATE_LIMIT`); one more is allowed in `retryAfterSeconds`.
    case rateLimited(retryAfterSeconds: Int64)
    /// The table of used states is full of attempts that have not expired; the first expires in
    /// `retryAfterSeconds`. Refused rather than forgetting one, which would reopen its replay.
    case busy(retryAfterSeconds: Int64)

    /// Short, stable reason code.
    public var reasonCode: String {
        switch self {
        case .cancelled: "cancelled"
        case .providerError: "provider_error"
        case .stateMissing: "state_missing"
        case .stateExpired: "state_expired"
        case .stateInvalid: "state_invalid"
        case .stateReplayed: "state_replayed"
        case .callbackMalformed: "callback_malformed"
        case .issuerMismatch: "issuer_mismatch"
        case .issuerMissing: "issuer_missing"
        case .redemptionRefused: "redemption_refused"
        case .providerUnavailable: "provider_unavailable"
        case .clientCredential: "client_credential"
        case .notReady: "not_ready"
        case .tokenInvalid: "token_invalid"
        case .wrongTenant: "wrong_tenant"
        case .notAllowed: "not_allowed"
        case .rateLimited: "rate_limited"
        case .busy: "sign_in_busy"
        }
    }

    /// Every reason code, for metrics registered up front and for tests.
    public static let allReasonCodes = [
        "cancelled", "provider_error", "state_missing", "state_expired", "state_invalid", "state_replayed",
        "callback_malformed", "issuer_mismatch", "issuer_missing", "redemption_refused", "provider_unavailable", "client_credential",
        "not_ready", "token_invalid", "wrong_tenant", "not_allowed", "rate_limited", "sign_in_busy",
    ]

    /// 4xx for what the browser brought; 5xx only when the provider, the network or our own
    /// configuration failed.
    public var status: Int {
        switch self {
        case .cancelled, .tokenInvalid: 401
        case .providerError(let code):
            code == "server_error" || code == "temporarily_unavailable" ? 502 : 401
        case .stateMissing, .stateExpired, .stateInvalid, .stateReplayed, .callbackMalformed, .issuerMismatch, .issuerMissing,
            .redemptionRefused:
            400
        case .wrongTenant, .notAllowed: 403
        case .rateLimited: 429
        case .providerUnavailable: 502
        case .clientCredential: 500
        case .notReady, .busy: 503
        }
    }

    /// Seconds for a `Retry-After` field, for the failures that pass with time.
    public var retryAfterSeconds: Int64? {
        switch self {
        case .rateLimited(let seconds), .busy(let seconds): seconds
        default: nil
        }
    }

    /// The page's title.
    public var title: String {
        switch self {
        case .rateLimited: "Too many sign-in attempts"
        case .busy: "Sign-in is busy"
        default: "Sign-in failed"
        }
    }

    /// The page's one sentence, for the person in front of the browser.
    public var explanation: String {
        switch self {
        case .cancelled: "The sign-in was cancelled."
        case .providerError: "The identity provider could not sign you in."
        case .stateMissing, .stateExpired:
            "This sign-in attempt has expired or was started in another browser. Please start again."
        case .stateInvalid, .stateReplayed, .callbackMalformed:
            "This sign-in link is not valid any more. Please start again."
        case .issuerMismatch, .issuerMissing:
            "This sign-in answer did not come from the expected identity provider. Please start again."
        case .redemptionRefused: "The identity provider did not accept this sign-in. Please start again."
        case .providerUnavailable: "The identity provider cannot be reached right now. Please try again in a moment."
        case .clientCredential: "Sign-in is not set up correctly on this server. Please tell its administrator."
        case .notReady: "Sign-in is starting up. Please try again in a moment."
        case .tokenInvalid: "The identity provider's answer could not be verified. Please start again."
        case .wrongTenant: "Your account belongs to an organisation this application does not serve."
        case .notAllowed: "Your account is not allowed to use this application."
        case .rateLimited: "Too many sign-in attempts came from your network. Please wait a moment and try again."
        case .busy: "Too many sign-ins are in progress right now. Please wait a moment and try again."
        }
    }

    /// The failure a provider error becomes.
    public init(_ error: SignInProviderError) {
        switch error {
        case .unreachable(let reason), .malformed(let reason): self = .providerUnavailable(reason: reason)
        case .refused(let status, let oauthError):
            self = status >= 500 ? .providerUnavailable(reason: "token endpoint answered \(status)") : .redemptionRefused(oauthError: oauthError)
        case .credential(let reason): self = .clientCredential(reason: reason)
        }
    }

    /// An `error` value from the callback's query, kept only when it is a plain RFC 6749 token.
    public static func fromCallbackError(_ code: String) -> SignInFailure {
        if code == "access_denied" { return .cancelled }
        let isPlain = (1...64).contains(code.utf8.count)
            && code.utf8.allSatisfy { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || $0 == UInt8(ascii: "_") }
        return .providerError(code: isPlain ? code : nil)
    }
}
