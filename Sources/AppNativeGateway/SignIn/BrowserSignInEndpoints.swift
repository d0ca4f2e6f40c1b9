import AppNativeAuth
import AppNativeCore
import AppNativeHTTP
import AppNativeProxy
import AppNativeServer
import AppNativeSignIn

/// The browser sign-in on one loop: the redirect of a navigation without a credential,
/// `{AUTH_PATH_PREFIX}login`, `{AUTH_PATH_PREFIX}callback`, the sign-out redirect and the
/// signed-out page. The code redemption runs off the loop through `OffLoopWait`.
final class BrowserSignInEndpoints {
    private let signIn: BrowserSignIn
    /// The session cookie codec in force (replaced when `SIGHUP` rotated the session secret).
    var cookies: SessionCookieCodec
    private let accessPolicy: AccessPolicySource?
    private let trustedProxies: TrustedProxies
    private let authPathPrefix: String
    private let callbacks: OffLoopWait<PendingCallback>

    /// A callback waiting for its code redemption.
    private struct PendingCallback {
        let attempt: SignInAttempt
        let origin: PublicOrigin
    }

    init(
        loop: EventLoop, signIn: BrowserSignIn, cookies: SessionCookieCodec, accessPolicy: AccessPolicySource?, trustedProxies: TrustedProxies,
        authPathPrefix: String
    ) {
        self.signIn = signIn
        self.cookies = cookies
        self.accessPolicy = accessPolicy
        self.trustedProxies = trustedProxies
        self.authPathPrefix = authPathPrefix
        callbacks = OffLoopWait(loop: loop)
    }

    private var loginPath: String { authPathPrefix + "login" }
    private var callbackPath: String { authPathPrefix + "callback" }
    private var signedOutPath: String { authPathPrefix + "signed-out" }

    /// Whether a request that failed authentication with 401 is sent to sign in instead.
    func isSignInNavigation(_ request: HTTPRequestHead) -> Bool {
        signIn.classifier.isSignInNavigation(method: request.method, headers: request.headers)
    }

    /// The sign-in redirect for a navigation, back to the page it asked for (path and query).
    func redirectToSignIn(_ exchange: HTTPExchange) {
        begin(exchange, returnPath: ReturnPath.orRoot(exchange.request.target))
    }

    /// Where a forward-auth front proxy sends a navigation that `verify` refused with 401:
    /// `{AUTH_PATH_PREFIX}login?redirect=<the original URI>`, for `original`, the request the
    /// proxy asked about (`ForwardAuthRequest`). `nil` for anything that is not a sign-in
    /// navigation, which keeps its plain 401.
    func forwardAuthSignInLocation(_ original: HTTPRequestHead) -> String? {
        guard isSignInNavigation(original) else { return nil }
        let query = FormURLEncoding.serialize([(name: "redirect", value: ReturnPath.orRoot(original.target).value)])
        return loginPath + "?" + String(decoding: query, as: UTF8.self)
    }

    /// `GET {AUTH_PATH_PREFIX}login?redirect=/path`.
    func serveLogin(_ exchange: HTTPExchange) {
        let redirect = FormURLEncoding.parseQuery(ofTarget: exchange.request.target).first { $0.name == "redirect" }?.value
        begin(exchange, returnPath: ReturnPath.orRoot(redirect))
    }

    private func begin(_ exchange: HTTPExchange, returnPath: ReturnPath) {
        guard let origin = origin(of: exchange) else {
            exchange.respondJSONError(status: 400, detail: "Bad Request")
            return
        }
        let started = signIn.begin(
            returnPath: returnPath, redirectURI: origin.text + callbackPath, isSecure: origin.isSecure, client: clientKey(of: exchange))
        switch started {
        case .success(let redirect):
            exchange.respond(status: 302, headers: [
                "Location": redirect.location, "Set-Cookie": redirect.setCookie, "Cache-Control": "no-store", "Content-Length": "0",
            ])
        case .failure(let failure):
            page(exchange, failure)
        }
    }

    /// `GET {AUTH_PATH_PREFIX}callback?code=…&state=…` (or `error=…`).
    func serveCallback(_ exchange: HTTPExchange) {
        guard let origin = origin(of: exchange) else {
            exchange.respondJSONError(status: 400, detail: "Bad Request")
            return
        }
        let parameters: CallbackParameters
        let metadata = signIn.metadata
        do {
            parameters = try CallbackParameters(
                target: exchange.request.target, expectedIssuer: metadata?.issuer, requiresIssuer: metadata?.sendsIssuerParameter ?? false)
        } catch {
            page(exchange, signIn.record(error))
            return
        }
        // Whatever happens next, the attempt's cookie goes: an attempt is used once.
        var clearing = HTTPHeaders()
        if let state = parameters.state, SignInAttempt.isWellFormedState(state) {
            clearing.add(name: "Set-Cookie", value: signIn.stateCookie.clearCookieHeader(forState: state, isSecure: origin.isSecure))
        }
        switch parameters {
        case .error(let failure, _):
            page(exchange, signIn.record(failure), extra: clearing)
        case .code(let code, let state):
            // Counted before anything else: each one may cost a call to the token endpoint. The
            // attempt's cookie stays: nothing was used, so a reload after Retry-After finishes it.
            if let limited = signIn.admitRedemption(client: clientKey(of: exchange)) {
                page(exchange, limited)
                return
            }
            switch signIn.attempt(forState: state, cookieHeaders: exchange.request.headers.values("Cookie"), isSecure: origin.isSecure) {
            case .failure(let failure):
                page(exchange, failure, extra: clearing)
            case .success(let attempt):
                let redirectURI = origin.text + callbackPath
                let signIn = signIn
                callbacks.wait(
                    exchange, with: PendingCallback(attempt: attempt, origin: origin),
                    for: { await signIn.complete(code: code, attempt: attempt, redirectURI: redirectURI) }
                ) { [weak self] exchange, pending, result in
                    self?.finishCallback(exchange, pending, result, clearing: clearing)
                }
            }
        }
    }

    private func finishCallback(
        _ exchange: HTTPExchange, _ pending: PendingCallback, _ result: Result<VerifiedIdentity, SignInFailure>, clearing: HTTPHeaders
    ) {
        let identity: VerifiedIdentity
        switch result {
        case .failure(let failure):
            page(exchange, failure, extra: clearing)
            return
        case .success(let verified):
            identity = verified
        }
        let returnPath = pending.attempt.returnPath
        let path = String(returnPath.value.prefix { $0 != "?" && $0 != "#" })
        if let accessPolicy, !accessPolicy.policy.allows(identity.user, method: "GET", path: path) {
            page(exchange, signIn.record(.notAllowed), extra: clearing)
            return
        }
        exchange.logFields["user.oid"] = identity.user.objectID
        var headers = clearing
        headers.add(name: "Set-Cookie", value: cookies.setCookieHeader(for: identity.user))
        headers.add(name: "Cache-Control", value: "no-store")
        if cookies.settings.sameSite == .strict {
            // A Strict cookie set in a redirect chain the provider started is not sent along it;
            // a page of our own starts a same-site navigation that carries it.
            for (name, value) in SignInPage.headers { headers.add(name: name, value: value) }
            exchange.respond(status: 200, headers: headers, body: SignInPage.continuing(to: returnPath))
            return
        }
        headers.add(name: "Location", value: returnPath.value)
        headers.add(name: "Content-Length", value: "0")
        exchange.respond(status: 302, headers: headers)
    }

    /// `POST logout` from a navigation (a form): `SIGN_OUT=entra` goes on to the provider's
    /// end-session endpoint, else to the signed-out page. Returns `false` for other requests
    /// (fetch/XHR), which keep today's 204.
    func answerLogoutNavigation(_ exchange: HTTPExchange, clearing: HTTPHeaders) -> Bool {
        guard NavigationClassifier.isDocumentNavigation(headers: exchange.request.headers), let origin = origin(of: exchange) else {
            return false
        }
        var headers = clearing
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Content-Length", value: "0")
        var location = signedOutPath
        if signIn.configuration.signOut == .entra, let endSession = signIn.metadata?.endSessionEndpoint {
            let request = EndSessionRequest(
                endSessionEndpoint: endSession, clientID: signIn.configuration.clientID, postLogoutRedirectURI: origin.text + signedOutPath)
            location = request.url
        }
        headers.add(name: "Location", value: location)
        // 303: the browser follows a POST's redirect with a GET.
        exchange.respond(status: 303, headers: headers)
        return true
    }

    /// `GET {AUTH_PATH_PREFIX}signed-out`.
    func serveSignedOut(_ exchange: HTTPExchange) {
        var headers = HTTPHeaders()
        for (name, value) in SignInPage.headers { headers.add(name: name, value: value) }
        exchange.respond(status: 200, headers: headers, body: SignInPage.signedOut(loginPath: loginPath))
    }

    private func page(_ exchange: HTTPExchange, _ failure: SignInFailure, extra: HTTPHeaders = HTTPHeaders()) {
        exchange.logFields["signin.reason"] = failure.reasonCode
        var headers = extra
        for (name, value) in SignInPage.headers { headers.add(name: name, value: value) }
        if let retryAfter = failure.retryAfterSeconds { headers.add(name: "Retry-After", value: "\(retryAfter)") }
        exchange.respond(status: failure.status, headers: headers, body: SignInPage.failure(failure, loginPath: loginPath))
    }

    /// The key the per-address limits count this request under: the client address the
    /// forwarding rules resolve (`TrustedProxies.clientAddress`), IPv6 by its /64.
    private func clientKey(of exchange: HTTPExchange) -> String {
        let peer = exchange.peer?.host ?? "unknown"
        let address = trustedProxies.clientAddress(peer: peer, forwardedFor: exchange.request.headers.values("X-Forwarded-For"))
        return TrustedProxies.limitKey(forClientAddress: address)
    }

    /// This gateway's origin as the browser sees it: `PUBLIC_URL`, else Host (and from a trusted
    /// proxy its `X-Forwarded-Proto`/`X-Forwarded-Host`, first value).
    private func origin(of exchange: HTTPExchange) -> PublicOrigin? {
        if let publicURL = signIn.configuration.publicURL { return PublicOrigin(parsing: publicURL) }
        let headers = exchange.request.headers
        var scheme = exchange.isSecure ? "https" : "http"
        var host = headers.first("Host")
        if let peer = exchange.peer, trustedProxies.contains(peer.host) {
            if let proto = headers.first("X-Forwarded-Proto").flatMap(Self.firstListValue) { scheme = proto.lowercased() }
            if let forwarded = headers.first("X-Forwarded-Host").flatMap(Self.firstListValue) { host = forwarded }
        }
        guard let host, headers.count(of: "Host") <= 1 else { return nil }
        return PublicOrigin(scheme: scheme, authority: host)
    }

    private static func firstListValue(_ value: String) -> String? {
        let first = value.split(separator: ",", maxSplits: 1).first.map { String($0).trimmingWhitespaceAndTabs() } ?? ""
        return first.isEmpty ? nil : first
    }
}

extension String {
    fileprivate func trimmingWhitespaceAndTabs() -> String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}

@available(*, unavailable, message: "loop-owned")
extension BrowserSignInEndpoints: Sendable {}
