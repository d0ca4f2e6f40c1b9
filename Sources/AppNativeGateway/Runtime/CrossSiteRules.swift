import AppNativeAuth
import AppNativeHTTP

/// The cross-site rules of the request path in one place: which requests count as CORS
/// preflights, and the Origin rule for cookie-authenticated state changes, WebSocket handshakes
/// and logout (contract/auth.md §11).
struct CrossSiteRules: Sendable {
    /// Origins accepted; empty: the request's own origin (its Host) only.
    let allowedOrigins: [String]

    /// A CORS preflight carries no credentials by definition (Fetch standard §4.8).
    func isPreflight(_ request: HTTPRequestHead) -> Bool {
        request.method == "OPTIONS" && request.headers.contains("Origin") && request.headers.contains("Access-Control-Request-Method")
    }

    /// Cookie-authenticated state changes and WebSocket handshakes must come from an allowed
    /// Origin: SameSite=Lax does not stop sibling subdomains (contract/auth.md §11).
    func allowsCredentialedRequest(_ request: HTTPRequestHead, method: AuthenticationMethod) -> Bool {
        guard method == .cookie else { return true }
        let changesState = ["POST", "PUT", "PATCH", "DELETE"].contains(request.method)
        let isWebSocket = request.headers.containsToken("websocket", inField: "Upgrade")
        guard changesState || isWebSocket else { return true }
        guard let origin = request.headers.first("Origin") else { return false }
        return isAllowed(origin: origin, request)
    }

    /// The Origin rule's one comparison: the request's own host, or ALLOWED_ORIGINS when set.
    private func isAllowed(origin: String, _ request: HTTPRequestHead) -> Bool {
        let origin = origin.lowercased()
        if allowedOrigins.isEmpty {
            guard let host = request.headers.first("Host")?.lowercased() else { return false }
            return origin == "https://" + host || origin == "http://" + host
        }
        return allowedOrigins.contains(origin)
    }

    /// Signing out changes state without a credential to check, so the Origin rule is all that
    /// stops another site's form from ending the session. Browsers send Origin on every POST;
    /// a request without one comes from a client that is not a browser.
    func allowsLogout(_ request: HTTPRequestHead) -> Bool {
        if let origin = request.headers.first("Origin") { return isAllowed(origin: origin, request) }
        return request.headers.first("Sec-Fetch-Site").map { $0.lowercased() != "cross-site" } ?? true
    }
}
