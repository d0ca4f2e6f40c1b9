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
        let read = try codec.attempt(forState: attempt.state, cookieHeaders: [cookiePair(header)], now: now + 5)
        #expect(read.state == attempt.state)
        #expect(read.nonce.revealed == attempt.nonce.revealed)
        #expect(read.proofKey.verifier.revealed == attempt.proofKey.verifier.revealed)
        #expect(read.returnPath.value == "/app?x=1")
        #expect(read.expiresAt == attempt.expiresAt)
    }

    @Test func attributes() throws {
        let attempt = SignInAttempt.start(returnPath: .root, now: now)
        let secure = try codec().setCookieHeader(for: attempt, now: now, isSecure: true)
        #expect(secure.hasPrefix(SignInStateCookie.name(forState: attempt.state) + "="))
        #expect(secure.contains("; Path=/.auth/callback;"))
        #expect(secure.contains("; Max-Age=600;"))
        #expect(secure.contains("HttpOnly"))
        #expect(secure.contains("; Secure"))
        #expect(secure.hasSuffix("SameSite=Lax"))
        let plain = try codec().setCookieHeader(for: attempt, now: now, isSecure: false)
        #expect(!plain.contains("Secure"))
        let cleared = try codec().clearCookieHeader(forState: attempt.state, isSecure: true)
        #expect(cleared == SignInStateCookie.name(forState: attempt.state) + "=; Path=/.auth/callback; Max-Age=0; HttpOnly; Secure; SameSite=Lax")
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
        #expect(SignInStateCookie.name(forState: a.state) != SignInStateCookie.name(forState: b.state))
    }

    @Test func severalTabsEachFindTheirOwn() throws {
        let codec = try codec()
        let tabs = (0..<3).map { SignInAttempt.start(returnPath: ReturnPath.orRoot("/tab\($0)"), now: now) }
        let cookie = tabs.map { cookiePair(codec.setCookieHeader(for: $0, now: now, isSecure: true)) }.joined(separator: "; ")
        for (index, tab) in tabs.enumerated() {
            let read = try codec.attempt(forState: tab.state, cookieHeaders: [cookie], now: now)
            #expect(read.returnPath.value == "/tab\(index)")
        }
    }

    @Test func missingCookie() throws {
        let attempt = SignInAttempt.start(returnPath: .root, now: now)
        #expect(throws: SignInFailure.stateMissing) {
            try codec().attempt(forState: attempt.state, cookieHeaders: ["other=1"], now: now)
        }
    }

    @Test func expired() throws {
        let codec = try codec()
        let attempt = SignInAttempt.start(returnPath: .root, now: now)
        let pair = cookiePair(codec.setCookieHeader(for: attempt, now: now, isSecure: true))
        #expect(throws: SignInFailure.stateExpired) {
            try codec.attempt(forState: attempt.state, cookieHeaders: [pair], now: now + 601)
        }
    }

    @Test func forgedMACIsRefused() throws {
        let codec = try codec()
        let attempt = SignInAttempt.start(returnPath: .root, now: now)
        let pair = cookiePair(codec.setCookieHeader(for: attempt, now: now, isSecure: true))
        // Signed with another secret: the same shape, a MAC that does not verify.
        let forged = cookiePair(try self.codec(secrets: [Self.otherSecret]).setCookieHeader(for: attempt, now: now, isSecure: true))
        #expect(throws: SignInFailure.stateInvalid) { try codec.attempt(forState: attempt.state, cookieHeaders: [forged], now: now) }
        // One flipped character of the payload.
        var bytes = Array(pair.utf8)
        let index = pair.utf8.count - 60
        bytes[index] = bytes[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(throws: SignInFailure.stateInvalid) {
            try codec.attempt(forState: attempt.state, cookieHeaders: [String(decoding: bytes, as: UTF8.self)], now: now)
        }
        let name = SignInStateCookie.name(forState: attempt.state)
        for garbage in ["", "x", "a.b", "a.b.c", "....", String(repeating: "A", count: 5000) + ".AAAA"] {
            #expect(throws: SignInFailure.stateInvalid) { try codec.attempt(forState: attempt.state, cookieHeaders: ["\(name)=\(garbage)"], now: now) }
        }
    }

    @Test func anotherAttemptsCookieUnderThisNameIsRefused() throws {
        let codec = try codec()
        let mine = SignInAttempt.start(returnPath: .root, now: now)
        let theirs = SignInAttempt.start(returnPath: .root, now: now)
        let value = cookiePair(codec.setCookieHeader(for: theirs, now: now, isSecure: true)).split(separator: "=", maxSplits: 1)[1]
        let renamed = SignInStateCookie.name(forState: mine.state) + "=" + value
        #expect(throws: SignInFailure.stateInvalid) { try codec.attempt(forState: mine.state, cookieHeaders: [renamed], now: now) }
    }

    @Test func malformedStateIsRefused() throws {
        #expect(throws: SignInFailure.stateInvalid) { try codec().attempt(forState: "short", cookieHeaders: [], now: now) }
        #expect(throws: SignInFailure.stateInvalid) {
            try codec().attempt(forState: String(repeating: "%", count: 43), cookieHeaders: [], now: now)
        }
    }

    @Test func rotatedSecretStillReadsAttemptsInFlight() throws {
        let old = try codec(secrets: [Self.otherSecret])
        let rotated = try codec(secrets: [Self.secret, Self.otherSecret])
        let attempt = SignInAttempt.start(returnPath: .root, now: now)
        let pair = cookiePair(old.setCookieHeader(for: attempt, now: now, isSecure: true))
        #expect(try rotated.attempt(forState: attempt.state, cookieHeaders: [pair], now: now).state == attempt.state)
    }

    @Test func sessionCookieKeyIsNotTheStateKey() throws {
        // The state cookie's MAC key is derived: an HS256 JWT made with the raw secret is no state cookie.
        let codec = try codec()
        let attempt = SignInAttempt.start(returnPath: .root, now: now)
        let pair = cookiePair(codec.setCookieHeader(for: attempt, now: now, isSecure: true))
        let value = String(pair.split(separator: "=", maxSplits: 1)[1])
        let parts = value.split(separator: ".")
        let raw = try HMACSHA256(key: Self.secret)
        let input = Array("\(SignInStateCookie.name(forState: attempt.state)).\(parts[0])".utf8)
        #expect(Base64URL.encode(raw.authenticationCode(for: input)) != String(parts[1]))
    }

    @Test func replayIsRefusedOnce() {
        let consumed = ConsumedSignInStates(capacity: 4)
        #expect(consumed.consume("s1", expiresAt: 100, now: 10))
        #expect(!consumed.consume("s1", expiresAt: 100, now: 20))
        // After the attempt would have expired anyway the entry may go.
        #expect(consumed.consume("s1", expiresAt: 200, now: 150))
    }

    @Test func consumedStatesStayBounded() {
        let consumed = ConsumedSignInStates(capacity: 8)
        for index in 0..<100 { #expect(consumed.consume("s\(index)", expiresAt: Int64(1000 + index), now: 10)) }
        #expect(consumed.count <= 8)
        #expect(!consumed.consume("s99", expiresAt: 2000, now: 10))
    }
}
