import AppNativeAuth
import AppNativeCore
import AppNativeCrypto

/// The authorization codes the dev identity provider has issued and not yet redeemed
/// (RFC 6749 §4.1.2: short-lived, single-use, bound to the client and the redirect URI; RFC 7636
/// §4.4: bound to the PKCE challenge).
final class DevSignInCodes: Sendable {
    struct Grant: Sendable {
        let clientID: String
        let redirectURI: String
        let codeChallenge: String
        let nonce: String?
        let scope: String
        let user: DevSignInUser
        let expiresAt: Double
    }

    /// Why a code was not redeemed; every case is `invalid_grant` on the wire (RFC 6749 §5.2).
    enum Refusal: Error, Equatable {
        case unknownOrUsed
        case expired
        case otherClient
        case otherRedirectURI
        case verifierMismatch
    }

    /// How long a code stays redeemable: RFC 6749 §4.1.2 recommends at most ten minutes; a browser
    /// round trip takes seconds.
    static let lifetime = 60.0
    /// Outstanding codes kept at most; older ones are dropped first (a dev peer, not a store).
    static let capacity = 1024

    private let grants = Locked([String: Grant]())

    /// Issues a code for `grant`.
    func issue(_ grant: Grant) -> String {
        let code = Base64URL.encode(SecureRandom.bytes(count: 32))
        grants.withLock { grants in
            if grants.count >= Self.capacity {
                let oldest = grants.min { $0.value.expiresAt < $1.value.expiresAt }?.key
                if let oldest { grants[oldest] = nil }
            }
            grants[code] = grant
        }
        return code
    }

    /// Redeems `code`: it is gone afterwards whether or not the other checks pass, so a code
    /// presented twice fails the second time even if the first presentation was refused.
    func redeem(code: String, clientID: String, redirectURI: String, codeVerifier: String, now: Double) throws(Refusal) -> Grant {
        guard let grant = grants.withLock({ $0.removeValue(forKey: code) }) else { throw .unknownOrUsed }
        guard now < grant.expiresAt else { throw .expired }
        guard grant.clientID == clientID else { throw .otherClient }
        guard grant.redirectURI == redirectURI else { throw .otherRedirectURI }
        // RFC 7636 §4.6: BASE64URL(SHA256(ASCII(code_verifier))) == code_challenge.
        let computed = Base64URL.encode(SHA256.hash(codeVerifier))
        guard ConstantTime.equals(Array(computed.utf8), Array(grant.codeChallenge.utf8)) else { throw .verifierMismatch }
        return grant
    }
}
