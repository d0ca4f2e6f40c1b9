public import AppNativeCore

/// What the provider's redirect back carries (RFC 6749 §4.1.2): `code` and `state`, or `error`.
/// A parameter given twice is refused rather than one of its values picked: which one a server
/// picks is exactly what parameter-pollution attacks play on.
public enum CallbackParameters: Sendable {
    case code(Secret<String>, state: String)
    case error(SignInFailure, state: String?)

    /// The parameters of a callback request target.
    ///
    /// - Parameters:
    ///   - expectedIssuer: the discovery `issuer`; an `iss` parameter (RFC 9207, the
    ///     authorization server's identification against mix-up) must equal it.
    ///   - requiresIssuer: discovery advertises `authorization_response_iss_parameter_supported`:
    ///     a callback without `iss` is refused (RFC 9207 §2.4), error answers included.
    /// - Throws: `.callbackMalformed` when the query does not decode, a parameter repeats, or
    ///   neither a code with a state nor an error is present; `.issuerMismatch` for another `iss`;
    ///   `.issuerMissing` for none when one is required.
    public init(target: String, expectedIssuer: String? = nil, requiresIssuer: Bool = false) throws(SignInFailure) {
        guard let pairs = SignInText.queryPairs(ofTarget: target) else { throw .callbackMalformed }
        var values = [String: String]()
        for (name, value) in pairs where ["code", "state", "error", "iss"].contains(name) {
            guard values[name] == nil else { throw .callbackMalformed }
            values[name] = value
        }
        if let issuer = values["iss"], let expectedIssuer, issuer != expectedIssuer { throw .issuerMismatch }
        if requiresIssuer, values["iss"] == nil { throw .issuerMissing }
        let state = values["state"].flatMap { $0.isEmpty ? nil : $0 }
        if let error = values["error"] {
            self = .error(SignInFailure.fromCallbackError(error), state: state)
            return
        }
        guard let code = values["code"], !code.isEmpty, code.utf8.count <= 8192, let state else { throw .callbackMalformed }
        self = .code(Secret(code), state: state)
    }

    /// The `state` the callback names, when it names one.
    public var state: String? {
        switch self {
        case .code(_, let state): state
        case .error(_, let state): state
        }
    }
}
