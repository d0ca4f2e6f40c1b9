import AppNativeCore
public import AppNativeCrypto
import AppNativeAuth
import AppNativeHTTP
import AppNativeJSON

/// The per-attempt cookie: the attempt's state, nonce, PKCE verifier, return path and expiry,
/// HMAC-SHA256 signed with a key derived from the session secret. One cookie per attempt, its
/// name derived from the `state`, so attempts in several tabs do not overwrite each other;
/// `SameSite=Lax`, so the provider's top-level redirect back carries it and a cross-site
/// subrequest does not.
///
/// On an https origin the name carries the `__Host-` prefix (RFC 6265bis §4.1.3.2): the browser
/// keeps such a cookie only when it is `Secure`, has `Path=/` and no `Domain`, so a sibling
/// subdomain cannot plant one (cookie tossing: the attacker's own attempt cookie beside the
/// attacker's code would sign the victim in as the attacker), and only that name is read there.
/// On a plain-http origin (loopback development) browsers refuse `__Host-`, so the cookie keeps
/// the bare name with `Path` set to the callback.
///
/// Signed, not encrypted: the browser holding the cookie is the client the verifier protects.
/// What the MAC stops is a cookie the browser did not get from us (login CSRF, a planted attempt);
/// the MAC covers the name, prefix included, so a value cannot move to another name.
public struct SignInStateCookie: Sendable {
    /// MAC keys derived from each session secret, the signing one first (rotation keeps working
    /// for attempts started just before it).
    private let keys: [HMACSHA256]
    /// `{AUTH_PATH_PREFIX}callback`: the cookie's `Path` on a plain-http origin.
    public let callbackPath: String

    public static let namePrefix = "bms_signin_"
    /// The prefix of the name on an https origin.
    public static let hostPrefix = "__Host-"
    /// Accepted on top of the attempt's lifetime for clocks of several instances.
    public static let leeway: Int64 = 60

    /// - Parameter sessionSecrets: the session cookie's secrets, the signing one first.
    /// - Throws: `CryptoError` when a derived key is refused (never for secrets the session accepted).
    public init(sessionSecrets: [SecretBytes], callbackPath: String) throws(CryptoError) {
        var keys = [HMACSHA256]()
        for secret in sessionSecrets {
            // HMAC as a PRF over a fixed label: a key for this cookie only, so no state cookie
            // can ever be read as a session cookie or the other way round.
            var derived = try HMACSHA256(key: secret).authenticationCode(for: Array("appnative sign-in state cookie v1".utf8))
            keys.append(try HMACSHA256(key: SecretBytes(zeroing: &derived)))
        }
        self.keys = keys
        self.callbackPath = callbackPath
    }

    /// The cookie name for `state`: a digest prefix, so the name is a valid token whatever the
    /// query carried and a tab's cookie is found by its own `state`; `__Host-` first when the
    /// origin is https.
    public static func name(forState state: String, isSecure: Bool) -> String {
        (isSecure ? hostPrefix : "") + namePrefix + String(Base64URL.encode(SHA256.hash(state)).prefix(22))
    }

    /// `Set-Cookie` for a fresh attempt; `isSecure` when the browser reaches us over https.
    public func setCookieHeader(for attempt: SignInAttempt, now: Double, isSecure: Bool) -> String {
        let name = Self.name(forState: attempt.state, isSecure: isSecure)
        let wall = now.isFinite ? Int64(max(0, min(now, 1e15))) : 0
        let maxAge = max(0, attempt.expiresAt - wall)
        return "\(name)=\(value(for: attempt, name: name)); Path=\(path(isSecure: isSecure)); Max-Age=\(maxAge); \(Self.attributes(isSecure: isSecure))"
    }

    /// `Set-Cookie` that removes the attempt's cookie (at the callback, whatever its outcome).
    public func clearCookieHeader(forState state: String, isSecure: Bool) -> String {
        "\(Self.name(forState: state, isSecure: isSecure))=; Path=\(path(isSecure: isSecure)); Max-Age=0; \(Self.attributes(isSecure: isSecure))"
    }

    /// `/` for a `__Host-` cookie (the prefix demands it), else the callback, so the browser sends
    /// the cookie nowhere else.
    private func path(isSecure: Bool) -> String { isSecure ? "/" : callbackPath }

    private static func attributes(isSecure: Bool) -> String { isSecure ? "HttpOnly; Secure; SameSite=Lax" : "HttpOnly; SameSite=Lax" }

    func value(for attempt: SignInAttempt, name: String) -> String {
        let payload: JSONValue = .object(JSONObject([
            ("s", .string(attempt.state)),
            ("n", .string(attempt.nonce.revealed)),
            ("v", .string(attempt.proofKey.verifier.revealed)),
            ("r", .string(attempt.returnPath.value)),
            ("e", .number(JSONNumber(attempt.expiresAt))),
        ]))
        let encoded = Base64URL.encode(JSONSerializer.serialize(payload))
        return encoded + "." + Base64URL.encode(keys[0].authenticationCode(for: Self.macInput(name: name, payload: encoded)))
    }

    /// The name is part of the MAC input: a valid cookie cannot be renamed to pose as another attempt's.
    static func macInput(name: String, payload: String) -> [UInt8] {
        Array("\(name).\(payload)".utf8)
    }

    /// The attempt for the callback's `state`, from the request's `Cookie` fields.
    ///
    /// - Parameter isSecure: the origin is https: only the `__Host-` name is read (a bare-named
    ///   cookie there may have been planted by a sibling subdomain).
    /// - Throws: `.stateMissing` (no cookie of that name), `.stateInvalid` (MAC, content or
    ///   `state` mismatch), `.stateExpired`.
    public func attempt(forState state: String, cookieHeaders: [String], now: Double, isSecure: Bool) throws(SignInFailure) -> SignInAttempt {
        guard SignInAttempt.isWellFormedState(state) else { throw .stateInvalid }
        let name = Self.name(forState: state, isSecure: isSecure)
        let values = CookieHeader.values(named: name, in: cookieHeaders)
        guard !values.isEmpty else { throw .stateMissing }
        var failure = SignInFailure.stateInvalid
        for value in values {
            do throws(SignInFailure) {
                return try attempt(fromValue: value, name: name, state: state, now: now)
            } catch {
                // An expired genuine cookie explains more than a second, broken one.
                if failure != .stateExpired { failure = error }
            }
        }
        throw failure
    }

    private func attempt(fromValue value: String, name: String, state: String, now: Double) throws(SignInFailure) -> SignInAttempt {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].utf8.count <= 4096, let mac = Base64URL.decode(parts[1]),
            mac.count == HMACSHA256.byteCount
        else { throw .stateInvalid }
        let input = Self.macInput(name: name, payload: String(parts[0]))
        guard keys.contains(where: { $0.isValidAuthenticationCode(mac, for: input) }) else { throw .stateInvalid }
        guard let payload = Base64URL.decode(parts[0]),
            let object = (try? JSONParser().parse(payload))?.objectValue,
            let cookieState = object["s"]?.stringValue,
            let nonce = object["n"]?.stringValue, !nonce.isEmpty,
            let verifier = object["v"]?.stringValue, ProofKey.isValidVerifier(verifier),
            let returnPath = object["r"]?.stringValue.flatMap(ReturnPath.init(validating:)),
            let expiresAt = object["e"]?.numberValue?.int64
        else { throw .stateInvalid }
        guard ConstantTime.equals(Array(cookieState.utf8), Array(state.utf8)) else { throw .stateInvalid }
        let wall = now.isFinite ? Int64(max(0, min(now, 1e15))) : 0
        guard expiresAt > wall else { throw .stateExpired }
        // An expiry further out than any attempt gets was not written by us.
        guard expiresAt - wall <= SignInAttempt.maxLifetime.components.seconds + Self.leeway else { throw .stateInvalid }
        return SignInAttempt(
            state: cookieState, nonce: Secret(nonce), proofKey: ProofKey(verifier: Secret(verifier)), returnPath: returnPath,
            expiresAt: expiresAt)
    }
}
