public import AppNativeHTTP

/// Decides which unauthenticated requests are sent to sign in: only top-level browser
/// navigations. Everything else (fetch/XHR, sub-resources, EventSource, WebSocket, requests that
/// carry `Authorization`) keeps the 401 it gets today, so scripts and the app never receive an
/// HTML redirect they cannot follow.
public struct NavigationClassifier: Sendable {
    /// `BROWSER_SIGN_IN`: when off, nothing is ever a sign-in navigation.
    public let isEnabled: Bool

    public init(isEnabled: Bool) {
        self.isEnabled = isEnabled
    }

    /// Whether a request without a valid credential gets the sign-in redirect instead of its 401.
    /// Native routes are never passed here: the gateway answers them with their contract.
    public func isSignInNavigation(method: String, headers: HTTPHeaders) -> Bool {
        guard isEnabled else { return false }
        // A navigation re-sent as GET after the sign-in must mean the same thing: a form POST
        // would come back as a GET without its body, so only GET and HEAD are redirected.
        guard method == "GET" || method == "HEAD" else { return false }
        // A client that sends a credential is a program; a wrong credential stays a 401.
        if headers.contains("Authorization") { return false }
        if headers.containsToken("websocket", inField: "Upgrade") { return false }
        if headers.containsMediaType("text/event-stream", inField: "Accept") { return false }
        // Fetch Metadata (W3C): a top-level navigation is mode `navigate` with destination `document`.
        // `iframe` and other nested destinations are not: a framed sign-in page cannot work.
        if let mode = headers.first("Sec-Fetch-Mode") {
            return Self.lowercasedTrimmed(mode) == "navigate"
                && headers.first("Sec-Fetch-Dest").map(Self.lowercasedTrimmed) == "document"
        }
        if headers.contains("Sec-Fetch-Dest") { return false }
        // Clients without Fetch Metadata: a GET whose Accept prefers HTML.
        return Self.acceptPrefersHTML(headers.values("Accept"))
    }

    /// Whether `text/html` is listed with a non-zero quality no lower than any other range's
    /// (RFC 9110 §12.5.1). `*/*` alone (curl, most libraries) does not prefer HTML.
    static func acceptPrefersHTML(_ fields: [String]) -> Bool {
        var html: Double?
        var best = 0.0
        for field in fields {
            for element in field.split(separator: ",") {
                let parts = element.split(separator: ";")
                guard let first = parts.first else { continue }
                let range = lowercasedTrimmed(first)
                if range.isEmpty { continue }
                var quality = 1.0
                for parameter in parts.dropFirst() {
                    let pair = parameter.split(separator: "=", maxSplits: 1)
                    guard pair.count == 2, lowercasedTrimmed(pair[0]) == "q" else { continue }
                    // An unreadable weight counts as 0: the range is then not preferred.
                    quality = Double(lowercasedTrimmed(pair[1])).flatMap { $0.isFinite ? min(max($0, 0), 1) : nil } ?? 0
                }
                if range == "text/html" {
                    html = max(html ?? 0, quality)
                } else {
                    best = max(best, quality)
                }
            }
        }
        guard let html, html > 0 else { return false }
        return html >= best
    }

    static func lowercasedTrimmed(_ text: some StringProtocol) -> String {
        String(text.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
            .lowercased()
    }
}

extension NavigationClassifier {
    /// Whether a request of any method is a top-level document navigation (a form POST to
    /// logout, for one), by Fetch Metadata or, without it, by an Accept that prefers HTML.
    public static func isDocumentNavigation(headers: HTTPHeaders) -> Bool {
        if let mode = headers.first("Sec-Fetch-Mode") {
            return lowercasedTrimmed(mode) == "navigate" && headers.first("Sec-Fetch-Dest").map(lowercasedTrimmed) == "document"
        }
        return acceptPrefersHTML(headers.values("Accept"))
    }
}
