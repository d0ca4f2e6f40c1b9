import AppNativeAuth
import AppNativeCore
import AppNativeCrypto
import AppNativeSignIn
import Testing

@Suite("Sign-in state cookie")
struct SignInStateCookieTests {
    static let secret = SecretBytes(utf8: "a-session-secret-of-at-least-32-bytes!!")
    static let otherSecret = SecretBytes(utf8: "another-session-secret-of-32-bytes-or-more")
    let now = 1_700_000_000.0

    func codec(secrets: [SecretBytes] = [secret]) throws -> SignInStateCookie {
        try SignInStateCookie(sessionSecrets: secrets, callbackPath: "/.auth/callback")
    }

    /// The `name=value` pair a browser would send back.
    func cookiePair(_ setCookie: String) -> String {
        String(setCookie.prefix { $0 != ";" })
    }

    @Test func roundTripKeepsEverything() throws {
        let codec = try codec()
        let attempt = SignInAttempt.start(returnPath: ReturnPath.orRoot("/app?x=1"), now: now)
        let header = codec.setCookieHeader(for: attempt, now: now, isSecure: true)
        let read = try codec.attempt(forState: attempt.state, cookieHeaders: [cookiePair(header)], now: now + 5, isSecure: true)
        #expect(read.state == attempt.state)
        #expect(read.nonce.revealed == attempt.nonce.revealed)
        #expect(read.proofKey.verifier.revealed == attempt.proofKey.verifier.revealed)
        #expect(read.returnPath.value == "/app?x=1")
        #expect(read.expiresAt == attempt.expiresAt)
    }

    @Test func attributes() throws {
        let attempt = SignInAttempt.start(returnPath: .root, now: now)
        let secure = try codec().setCookieHeader(for: attempt, now: now, isSecure: true)
        // https: a __Host- cookie (Secure, Path=/, no Domain), still one per attempt.
        #expect(secure.hasPrefix("__Host-bms_signin_"))
        #expect(secure.hasPrefix(SignInStateCookie.name(forState: attempt.state, isSecure: true) + "="))
        #expect(secure.contains("; Path=/;"))
        #expect(!secure.lowercased().contains("domain"))
        #expect(secure.contains("; Max-Age=600;"))
        #expect(secure.contains("HttpOnly"))
        #expect(secure.contains("; Secure"))
        #expect(secure.hasSuffix("SameSite=Lax"))
        // Plain-http loopback development: browsers refuse __Host- without Secure.
        let plain = try codec().setCookieHeader(for: attempt, now: now, isSecure: false)
        #expect(plain.hasPrefix(SignInStateCookie.name(forState: attempt.state, isSecure: false) + "="))
        #expect(plain.hasPrefix("bms_signin_"))
        #expect(plain.contains("; Path=/.auth/callback;"))
        #expect(!plain.contains("Secure"))
        let cleared = try codec().clearCookieHeader(forState: attempt.state, isSecure: true)
        #expect(cleared == SignInStateCookie.name(forState: attempt.state, isSecure: true) + "=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax")
        let clearedPlain = try codec().clearCookieHeader(forState: attempt.state, isSecure: false)
        #expect(clearedPlain == SignInStateCookie.name(forState: attempt.state, isSecure: false) + "=; Path=/.auth/callback; Max-Age=0; HttpOnly; SameSite=Lax")
    }

    @Test("on https only the __Host- name is read: a bare-named cookie (planted by a sibling subdomain) is missing")
    func plantedBareCookieIsMissing() throws {
        let codec = try codec()
        let attempt = SignInAttempt.start(returnPath: .root, now: now)
        let genuine = cookiePair(codec.setCookieHeader(for: attempt, now: now, isSecure: true))
        let bare = String(genuine.dropFirst("__Host-".count))
        #expect(throws: SignInFailure.stateMissing) { try codec.attempt(forState: attempt.state, cookieHeaders: [bare], now: now, isSecure: true) }
        // Moved under the plain-http name, the value's MAC (which covers the name) fails.
        #expect(throws: SignInFailure.stateInvalid) { try codec.attempt(forState: attempt.state, cookieHeaders: [bare], now: now, isSecure: false) }
        // A cookie minted on a plain-http origin cannot be renamed to the __Host- name either.
        let plain = cookiePair(codec.setCookieHeader(for: attempt, now: now, isSecure: false))
        #expect(throws: SignInFailure.stateInvalid) {
            try codec.attempt(forState: attempt.state, cookieHeaders: ["__Host-" + plain], now: now, isSecure: true)
        }
        #expect(try codec.attempt(forState: attempt.state, cookieHeaders: [bare + "; " + genuine], now: now, isSecure: true).state == attempt.state)
        #expect(try codec.attempt(forState: attempt.state, cookieHeaders: [plain], now: now, isSecure: false).state == attempt.state)
    }

    @Test func lifetimeIsAtMostTenMinutes() {
        let attempt = SignInAttempt.start(returnPath: .root, now: now, lifetime: .seconds(3600))
        #expect(attempt.expiresAt - Int64(now) == 600)
        let short = SignInAttempt.start(returnPath: .root, now: now, lifetime: .seconds(120))
        #expect(short.expiresAt - Int64(now) == 120)
    }

    @Test func stateNonceAndNameAreFreshPerAttempt() {
        let a = SignInAttempt.start(returnPath: .root, now: now)
        let b = SignInAttempt.start(returnPath: .root, now: now)
        #expect(a.state != b.state)
        #expect(a.nonce.revealed != b.nonce.revealed)
        #expect(SignInAttempt.isWellFormedState(a.state))
        #expect(SignInStateCookie.name(forState: a.state, isSecure: true) != SignInStateCookie.name(forState: b.state, isSecure: true))
    }

    @Test func severalTabsEachFindTheirOwn() throws {
        let codec = try codec()
        let tabs = (0..<3).map { SignInAttempt.start(returnPath: ReturnPath.orRoot("/tab\($0)"), now: now) }
        let cookie = tabs.map { cookiePair(codec.setCookieHeader(for: $0, now: now, isSecure: true)) }.joined(separator: "; ")
        for (index, tab) in tabs.enumerated() {
            let read = try codec.attempt(forState: tab.state, cookieHeaders: [cookie], now: now, isSecure: true)
            #expect(read.returnPath.value == "/tab\(index)")
        }
    }

    @Test func missingCookie() throws {
        let attempt = SignInAttempt.start(returnPath: .root, now: now)
        #expect(throws: SignInFailure.stateMissing) {
            try codec().attempt(forState: attempt.state, cookieHeaders: ["other=1"], now: now, isSecure: true)
        }
    }

    @Test func expired() throws {
        let codec = try codec()
        let attempt = SignInAttempt.start(returnPath: .root, now: now)
        let pair = cookiePair(codec.setCookieHeader(for: attempt, now: now, isSecure: true))
        #expect(throws: SignInFailure.stateExpired) {
            try codec.attempt(forState: attempt.state, cookieHeaders: [pair], now: now + 601, isSecure: true)
        }
    }

    @Test func forgedMACIsRefused() throws {
        let codec = try codec()
        let attempt = SignInAttempt.start(returnPath: .root, now: now)
        let pair = cookiePair(codec.setCookieHeader(for: attempt, now: now, isSecure: true))
        // Signed with another secret: the same shape, a MAC that does not verify.
        let forged = cookiePair(try self.codec(secrets: [Self.otherSecret]).setCookieHeader(for: attempt, now: now, isSecure: true))
        #expect(throws: SignInFailure.stateInvalid) { try codec.attempt(forState: attempt.state, cookieHeaders: [forged], now: now, isSecure: true) }
        // One flipped character of the payload.
        var bytes = Array(pair.utf8)
        let index = pair.utf8.count - 60
        bytes[index] = bytes[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(throws: SignInFailure.stateInvalid) {
            try codec.attempt(forState: attempt.state, cookieHeaders: [String(decoding: bytes, as: UTF8.self)], now: now, isSecure: true)
        }
        let name = SignInStateCookie.name(forState: attempt.state, isSecure: true)
        for garbage in ["", "x", "a.b", "a.b.c", "....", String(repeating: "A", count: 5000) + ".AAAA"] {
            #expect(throws: SignInFailure.stateInvalid) { try codec.attempt(forState: attempt.state, cookieHeaders: ["\(name)=\(garbage)"], now: now, isSecure: true) }
        }
    }

    @Test func anotherAttemptsCookieUnderThisNameIsRefused() throws {
        let codec = try codec()
        let mine = SignInAttempt.start(returnPath: .root, now: now)
        let theirs = SignInAttempt.start(returnPath: .root, now: now)
        let value = cookiePair(codec.setCookieHeader(for: theirs, now: now, isSecure: true)).split(separator: "=", maxSplits: 1)[1]
        let renamed = SignInStateCookie.name(forState: mine.state, isSecure: true) + "=" + value
        #expect(throws: SignInFailure.stateInvalid) { try codec.attempt(forState: mine.state, cookieHeaders: [renamed], now: now, isSecure: true) }
    }

    @Test func malformedStateIsRefused() throws {
        #expect(throws: SignInFailure.stateInvalid) { try codec().attempt(forState: "short", cookieHeaders: [], now: now, isSecure: true) }
        #expect(throws: SignInFailure.stateInvalid) {
            try codec().attempt(forState: String(repeating: "%", count: 43), cookieHeaders: [], now: now, isSecure: true)
        }
    }

    @Test func rotatedSecretStillReadsAttemptsInFlight() throws {
        let old = try codec(secrets: [Self.otherSecret])
        let rotated = try codec(secrets: [Self.secret, Self.otherSecret])
        let attempt = SignInAttempt.start(returnPath: .root, now: now)
        let pair = cookiePair(old.setCookieHeader(for: attempt, now: now, isSecure: true))
        #expect(try rotated.attempt(forState: attempt.state, cookieHeaders: [pair], now: now, isSecure: true).state == attempt.state)
    }

    @Test func sessionCookieKeyIsNotTheStateKey() throws {
        // The state cookie's MAC key is derived: an HS256 JWT made with the raw secret is no state cookie.
        let codec = try codec()
        let attempt = SignInAttempt.start(returnPath: .root, now: now)
        let pair = cookiePair(codec.setCookieHeader(for: attempt, now: now, isSecure: true))
        let value = String(pair.split(separator: "=", maxSplits: 1)[1])
        let parts = value.split(separator: ".")
        let raw = try HMACSHA256(key: Self.secret)
        let input = Array("\(SignInStateCookie.name(forState: attempt.state, isSecure: true)).\(parts[0])".utf8)
        #expect(Base64URL.encode(raw.authenticationCode(for: input)) != String(parts[1]))
    }

    @Test func replayIsRefusedOnce() {
        let consumed = ConsumedSignInStates(capacity: 4)
        #expect(consumed.consume("s1", expiresAt: 100, now: 10) == .fresh)
        #expect(consumed.consume("s1", expiresAt: 100, now: 20) == .replayed)
        // After the attempt would have expired anyway the entry may go.
        #expect(consumed.consume("s1", expiresAt: 200, now: 150) == .fresh)
    }

    @Test func consumedStatesStayBounded() {
        let consumed = ConsumedSignInStates(capacity: 8)
        for index in 0..<100 {
            let outcome = consumed.consume("s\(index)", expiresAt: Int64(1000 + index), now: 10)
            #expect(outcome == (index < 8 ? .fresh : .full(retryAfterSeconds: 600)))
        }
        #expect(consumed.count == 8)
        #expect(consumed.consume("s7", expiresAt: 2000, now: 10) == .replayed)
    }
}
