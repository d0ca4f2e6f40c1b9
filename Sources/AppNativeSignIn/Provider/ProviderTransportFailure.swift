import AppNativeClient

/// How a transport failure talking to the provider becomes a `SignInProviderError`: one mapping
/// for the discovery download and the token endpoint. The reason names the client's error code and
/// never its URL (a token endpoint's URL is harmless, but the rule is kept simple).
enum ProviderTransportFailure {
    static func error(for failure: ClientError, what: String) -> SignInProviderError {
        if failure.code == .responseTooLarge {
            return .malformed(reason: "\(what) larger than the size limit")
        }
        return .unreachable(reason: "\(what): \(failure.code)")
    }
}
