public import AppNativeAuth
public import AppNativeHTTP

/// What a repeated identity sends, rendered once (loop-owned): its identity header block with
/// the `exp` of the assertion inside, and its `Set-Cookie` with the second it was built in. A
/// repeated token or cookie then costs one dictionary lookup here instead of percent-encoding,
/// JSON, base64, HMAC and two field checks. The identity block is rebuilt once the assertion
/// is no longer reusable (the signer's rule: more than half its life left); the cookie when
/// the second changes (`iat` has one-second resolution, contract/auth.md §8.2).
public struct RenderedIdentities: Sendable {
    private let assertions: IdentityAssertionSigner
    private let profile: IdentityHeaders.Profile
    private let cookies: SessionCookieCodec?

    /// - Parameters:
    ///   - assertions: signs `X-AppNative-Identity`.
    ///   - profile: the identity header profile.
    ///   - cookies: issues the session cookie; `nil` when sessions are not configured.
    public init(assertions: IdentityAssertionSigner, profile: IdentityHeaders.Profile, cookies: SessionCookieCodec?) {
        self.assertions = assertions
        self.profile = profile
        self.cookies = cookies
    }

    private struct Entry: Sendable {
        var identity: HTTPHeaders
        var assertionExpiresAt: Double
        var cookieSecond: Int64 = .min
        var setCookie = HTTPHeaders()
    }

    /// Keyed by the whole verified identity: every field of the user (roles and groups
    /// included), the method and the credential's expiry, compared as values. An identity that
    /// differs anywhere (a role change, a renamed user) is rendered anew, and the assertion it
    /// gets is keyed the same way by the signer, so the headers and the assertion of an entry
    /// always state one identity.
    private var entries: [VerifiedIdentity: Entry] = [:]
    private static let limit = 10_000

    /// The identity headers for the upstream, and the `Set-Cookie` field for the client when
    /// `issuingCookie` and sessions are configured (else empty).
    public mutating func rendered(_ identity: VerifiedIdentity, issuingCookie: Bool) -> (identity: HTTPHeaders, setCookie: HTTPHeaders) {
        var changed = false
        var entry: Entry
        if let found = entries[identity], assertions.isReusable(expiringAt: found.assertionExpiresAt) {
            entry = found
        } else {
            entry = render(identity)
            changed = true
        }
        var setCookie = HTTPHeaders()
        // An application's token is never exchanged for a session.
        if issuingCookie, identity.user.callerType == .user, let cookies {
            let second = cookies.currentSecond
            if entry.cookieSecond != second {
                entry.cookieSecond = second
                entry.setCookie = ["Set-Cookie": cookies.setCookieHeader(for: identity.user)]
                changed = true
            }
            setCookie = entry.setCookie
        }
        if changed {
            if entries.count >= Self.limit { entries.removeAll(keepingCapacity: true) }
            entries[identity] = entry
        }
        return (entry.identity, setCookie)
    }

    private func render(_ identity: VerifiedIdentity) -> Entry {
        let user = identity.user
        let assertion = assertions.signedAssertion(for: identity)
        let headers = IdentityHeaders.headers(
            profile: profile,
            objectID: user.objectID,
            email: user.email,
            name: user.name,
            upn: user.upn,
            tenantID: user.tenantID,
            method: identity.method.rawValue,
            roles: user.roles,
            groups: user.groups,
            callerType: user.callerType.rawValue,
            clientID: user.clientID,
            assertion: assertion.token
        )
        return Entry(identity: headers, assertionExpiresAt: assertion.expiresAt)
    }
}
