/// A failure talking to the OpenID provider. Each case names a reason for logs and metrics; none
/// carries a code, a token, a secret or a body.
public enum SignInProviderError: Error, Sendable, Equatable {
    /// The provider could not be reached, timed out, or the connection failed.
    case unreachable(reason: String)
    /// The provider answered with an error status; `oauthError` is the RFC 6749 §5.2 `error`
    /// code when the body carried one that is a plain token (`invalid_grant`, …).
    case refused(status: Int, oauthError: String?)
    /// The answer was not the JSON document expected (missing field, wrong type, too large).
    case malformed(reason: String)
    /// The client credential could not be produced (unreadable key, certificate or token file).
    case credential(reason: String)

    /// A short reason code for logs and the sign-in failure metric.
    public var reasonCode: String {
        switch self {
        case .unreachable: "provider_unreachable"
        case .refused: "provider_refused"
        case .malformed: "provider_malformed"
        case .credential: "client_credential"
        }
    }
}
