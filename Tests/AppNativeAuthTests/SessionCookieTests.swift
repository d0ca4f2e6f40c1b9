import AppNativeAuth
import AppNativeCore
import AppNativeCrypto
import AppNativeJSON
import AppNativeTesting
import Foundation
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

/// contract/auth.md §8: settings, value, Set-Cookie, read rules, rotation.
@Suite("Session cookie")
struct SessionCookieTests {
    static let tenant = "1111aaaa-bbbb-4ccc-8ddd-eeeeffff0001"
    static let secret = "0123456789abcdef0123456789abcdef-session-secret"
    static let now = 1_800_000_000.0
    /// This deployment's `aud` entry in the codecs built here.
    static let deployment = "appnative:1111aaaa-test-app"
    static let user = UserIdentity(
        objectID: "0a0a0a0a-0000-4000-8000-000000000001",
        email: "ada@example.com",
        tenantID: tenant,
        name: "Zoë Müller-Łukasz",
        upn: "ada@corp.example"
    )

    static func codec(
        secrets: [String] = [secret],
        time: ManualTimeSource = ManualTimeSource(wallSeconds: now),
        maxAge: Duration = .seconds(28800),
        isSecure: Bool = true,
        sameSite: SessionCookieSettings.SameSite = .lax,
        deployment: String = deployment,
        acceptsReferenceCookies: Bool = false
    ) throws -> SessionCookieCodec {
        let settings = try SessionCookieSettings(
            secrets: secrets.map { SecretBytes(utf8: $0) },
            audience: deployment,
            acceptsReferenceCookies: acceptsReferenceCookies,
            maxAge: maxAge,
            isSecure: isSecure,
            sameSite: sameSite
        )
        return SessionCookieCodec(settings: settings, tenantID: tenant, time: time)
    }

    /// A cookie with arbitrary claims, MACed with `secret`.
    static func forge(_ claims: [String: Any], secret: String = secret, header: String = #"{"alg":"HS256","typ":"JWT"}"#) throws -> String {
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        let input = Base64URL.encode(header) + "." + Base64URL.encode(Array(payload))
        let mac = try HMACSHA256(key: SecretBytes(utf8: secret)).authenticationCode(for: Array(input.utf8))
        return input + "." + Base64URL.encode(mac)
    }

    static func claims(_ overrides: [String: Any] = [:], removing: [String] = []) -> [String: Any] {
        var claims: [String: Any] = [
            "aud": [SessionCookieCodec.audience, deployment],
            "sub": user.objectID,
            "email": user.email ?? "",
            "tid": tenant,
            "iat": Int(now),
            "exp": Int(now) + 28800,
        ]
        for (key, value) in overrides { claims[key] = value }
        for key in removing { claims.removeValue(forKey: key) }
        return claims
    }

    @Test("issue then read round-trips the identity")
    func roundTrip() throws {
        let codec = try Self.codec()
        let value = codec.value(for: Self.user)
        let identity = try codec.identity(fromValue: value)
        #expect(identity.user == Self.user)
        #expect(identity.method == .cookie)
        #expect(identity.expiresAt == Self.now + 28800)
    }

    @Test("the value carries exactly the contract's header and claims")
    func valueShape() throws {
        let value = try Self.codec().value(for: Self.user)
        let parts = value.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        let header = try JSONParser().parse(Base64URL.decode(parts[0])!)
        #expect(header == .object(JSONObject([("alg", .string("HS256")), ("typ", .string("JWT"))])))
        let claims = try #require(try JSONParser().parse(Base64URL.decode(parts[1])!).objectValue)
        #expect(Set(claims.keys) == ["aud", "sub", "email", "tid", "iat", "exp", "name", "upn"])
        #expect(claims["aud"] == .array([.string("bmsdna-app-native-session"), .string(Self.deployment)]))
        #expect(claims["iat"]?.numberValue?.int64 == Int64(Self.now))
        #expect(claims["exp"]?.numberValue?.int64 == Int64(Self.now) + 28800)
        let noName = UserIdentity(objectID: "o", email: "e@x", tenantID: Self.tenant)
        let bare = try #require(try JSONParser().parse(Base64URL.decode(
            String(try Self.codec().value(for: noName).split(separator: ".")[1]))!).objectValue)
        #expect(!bare.contains("name") && !bare.contains("upn"))
    }

    @Test("Set-Cookie attributes (compared as a lower-cased set)")
    func setCookie() throws {
        func attributes(_ header: String) -> Set<String> {
            Set(header.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
        }
        let header = try Self.codec().setCookieHeader(for: Self.user)
        #expect(header.hasPrefix("bms_session=ey"))
        #expect(attributes(header) == ["httponly", "max-age=28800", "path=/", "samesite=lax", "secure"])
        let relaxed = try Self.codec(maxAge: .seconds(600), isSecure: false, sameSite: .strict).setCookieHeader(for: Self.user)
        #expect(attributes(relaxed) == ["httponly", "max-age=600", "path=/", "samesite=strict"])
        #expect(!header.lowercased().contains("domain"))
        let clear = try Self.codec().clearCookieHeader()
        #expect(clear.hasPrefix("bms_session=;"))
        #expect(attributes(clear).isSuperset(of: ["httponly", "max-age=0", "path=/", "samesite=lax", "secure"]))
    }

    @Test("settings are validated at construction")
    func settingsValidation() throws {
        #expect(throws: AuthError(.configuration, "")) { try SessionCookieSettings(secrets: [SecretBytes(utf8: "short")], audience: Self.deployment) }
        #expect(throws: AuthError(.configuration, "")) { try SessionCookieSettings(secrets: [], audience: Self.deployment) }
        #expect(throws: AuthError(.configuration, "")) {
            try SessionCookieSettings(secrets: [SecretBytes(utf8: Self.secret)], audience: Self.deployment, maxAge: .zero)
        }
        #expect(throws: AuthError(.configuration, "")) {
            try SessionCookieSettings(secrets: [SecretBytes(utf8: Self.secret)], audience: Self.deployment, name: "__Host-session", isSecure: false)
        }
        _ = try SessionCookieSettings(secrets: [SecretBytes(utf8: Self.secret)], audience: Self.deployment, name: "__Host-session", isSecure: true)
        // 32 bytes counted as UTF-8: 16 two-byte characters pass.
        _ = try SessionCookieSettings(secrets: [SecretBytes(utf8: String(repeating: "é", count: 16))], audience: Self.deployment)
        // The deployment's `aud` entry: visible ASCII, bounded, never the reference's constant.
        for bad in ["", "two words", "caf\u{E9}", String(repeating: "a", count: 257), "bmsdna-app-native-session", "tab\t"] {
            #expect(throws: AuthError(.configuration, ""), "\(bad.debugDescription)") {
                try SessionCookieSettings(secrets: [SecretBytes(utf8: Self.secret)], audience: bad)
            }
        }
        _ = try SessionCookieSettings(secrets: [SecretBytes(utf8: Self.secret)], audience: String(repeating: "a", count: 256))
    }

    @Test("environment: names, defaults and refusals")
    func environment() throws {
        #expect(try SessionCookieSettings.fromEnvironment([:]) == nil)
        let settings = try #require(try SessionCookieSettings.fromEnvironment([
            "SESSION_SECRET": Self.secret, "SESSION_COOKIE_NAME": "app_session", "SESSION_MAX_AGE": "600",
            "SESSION_SECURE": "false", "SESSION_SAME_SITE": "strict", "ENTRA_AUDIENCE": "app",
        ]))
        #expect(settings.name == "app_session")
        #expect(settings.maxAge == .seconds(600))
        #expect(!settings.isSecure)
        #expect(settings.sameSite == .strict)
        // The largest values an Int holds would overflow `iat + max age` when a cookie is issued.
        let tooLong = ["34560001", "9223372036854775807", "99999999999999999999"].map { ["SESSION_MAX_AGE": $0] }
        for bad in [["SESSION_MAX_AGE": "0"], ["SESSION_MAX_AGE": "ten"], ["SESSION_SAME_SITE": "none"], ["SESSION_SECURE": "maybe"]] + tooLong {
            #expect(throws: AuthError(.configuration, ""), "\(bad)") {
                try SessionCookieSettings.fromEnvironment(bad.merging(["SESSION_SECRET": Self.secret, "ENTRA_AUDIENCE": "app"]) { $1 })
            }
        }
    }

    @Test("max age: at most 400 days, and a cookie with the longest one is issued and read back")
    func longestMaxAge() throws {
        #expect(throws: AuthError(.configuration, "")) {
            try SessionCookieSettings(secrets: [SecretBytes(utf8: Self.secret)], audience: Self.deployment, maxAge: .seconds(Int64.max))
        }
        let settings = try #require(try SessionCookieSettings.fromEnvironment([
            "SESSION_SECRET": Self.secret, "SESSION_MAX_AGE": "34560000", "ENTRA_AUDIENCE": "app",
        ]))
        #expect(settings.maxAge == SessionCookieSettings.longestMaxAge)
        let codec = try Self.codec(maxAge: SessionCookieSettings.longestMaxAge)
        let identity = try codec.identity(fromValue: codec.value(for: Self.user))
        #expect(identity.expiresAt == Self.now + 400 * 86_400)
    }

    struct ReadCase: Sendable, CustomTestStringConvertible {
        let name: String
        let cookie: @Sendable () throws -> String
        let isValid: Bool
        var testDescription: String { name }
    }

    static let readCases: [ReadCase] = [
        ReadCase(name: "valid", cookie: { try forge(claims()) }, isValid: true),
        ReadCase(name: "iat +20 s accepted", cookie: { try forge(claims(["iat": Int(now) + 20])) }, isValid: true),
        ReadCase(name: "iat +600 s rejected", cookie: { try forge(claims(["iat": Int(now) + 600])) }, isValid: false),
        ReadCase(name: "exp 120 s past rejected", cookie: { try forge(claims(["exp": Int(now) - 120])) }, isValid: false),
        ReadCase(name: "exp 20 s past accepted (30 s leeway)", cookie: { try forge(claims(["exp": Int(now) - 20])) }, isValid: true),
        ReadCase(name: "exp 29 s past accepted", cookie: { try forge(claims(["exp": Int(now) - 29])) }, isValid: true),
        ReadCase(name: "exp 30 s past rejected (equality counts as expired)", cookie: { try forge(claims(["exp": Int(now) - 30])) }, isValid: false),
        ReadCase(name: "exp 45 s past rejected (a token's 60 s leeway is not a cookie's)", cookie: { try forge(claims(["exp": Int(now) - 45])) }, isValid: false),
        ReadCase(name: "iat +31 s rejected", cookie: { try forge(claims(["iat": Int(now) + 31])) }, isValid: false),
        ReadCase(name: "nbf in the future rejected", cookie: { try forge(claims(["nbf": Int(now) + 600])) }, isValid: false),
        ReadCase(name: "wrong audience", cookie: { try forge(claims(["aud": "other"])) }, isValid: false),
        ReadCase(name: "this deployment without the constant", cookie: { try forge(claims(["aud": deployment])) }, isValid: false),
        ReadCase(name: "another deployment", cookie: { try forge(claims(["aud": [SessionCookieCodec.audience, "appnative:other"]])) }, isValid: false),
        ReadCase(name: "the reference's constant alone", cookie: { try forge(claims(["aud": SessionCookieCodec.audience])) }, isValid: false),
        ReadCase(name: "this deployment among others", cookie: {
            try forge(claims(["aud": ["appnative:other", SessionCookieCodec.audience, deployment]]))
        }, isValid: true),
        ReadCase(name: "deployment differs only in case", cookie: {
            try forge(claims(["aud": [SessionCookieCodec.audience, deployment.uppercased()]]))
        }, isValid: false),
        ReadCase(name: "aud missing", cookie: { try forge(claims(removing: ["aud"])) }, isValid: false),
        ReadCase(name: "exp missing", cookie: { try forge(claims(removing: ["exp"])) }, isValid: false),
        ReadCase(name: "sub missing", cookie: { try forge(claims(removing: ["sub"])) }, isValid: false),
        ReadCase(name: "email blank", cookie: { try forge(claims(["email": "  "])) }, isValid: false),
        ReadCase(name: "tid missing", cookie: { try forge(claims(removing: ["tid"])) }, isValid: false),
        ReadCase(name: "other tenant", cookie: { try forge(claims(["tid": "2222aaaa-bbbb-4ccc-8ddd-eeeeffff0002"])) }, isValid: false),
        ReadCase(name: "tenant differs only in case", cookie: { try forge(claims(["tid": tenant.uppercased()])) }, isValid: true),
        ReadCase(name: "wrong secret", cookie: { try forge(claims(), secret: String(repeating: "x", count: 40)) }, isValid: false),
        ReadCase(name: "alg none", cookie: {
            Base64URL.encode(#"{"alg":"none","typ":"JWT"}"#) + "." + Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: claims()))) + "."
        }, isValid: false),
        ReadCase(name: "alg HS512 header", cookie: { try forge(claims(), header: #"{"alg":"HS512","typ":"JWT"}"#) }, isValid: false),
        ReadCase(name: "tampered payload", cookie: {
            let parts = try forge(claims()).split(separator: ".")
            let other = Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: claims(["sub": "mallory"]))))
            return [String(parts[0]), other, String(parts[2])].joined(separator: ".")
        }, isValid: false),
        ReadCase(name: "empty", cookie: { "" }, isValid: false),
        ReadCase(name: "garbage", cookie: { "not-a-jwt" }, isValid: false),
    ]

    @Test("a cookie is accepted until exp + 30 s: at exp + 29 s yes, at exp + 31 s no, cached or not")
    func acceptedUntilExpiryPlusLeeway() throws {
        let time = ManualTimeSource(wallSeconds: Self.now)
        let settings = try SessionCookieSettings(secrets: [SecretBytes(utf8: Self.secret)], audience: Self.deployment, maxAge: .seconds(600))
        #expect(settings.leeway == .seconds(30))
        /// A codec that has not seen the cookie yet: the full verification, not the cache.
        func freshCodec() -> SessionCookieCodec { SessionCookieCodec(settings: settings, tenantID: Self.tenant, time: time) }
        let reader = freshCodec()
        let cookie = reader.value(for: Self.user)
        let header = ["\(settings.name)=\(cookie)"]
        // Read once while valid, so `reader` answers later reads from its verified cache.
        #expect(reader.identity(fromCookieHeaders: header) != nil)
        time.advance(by: .seconds(600 + 29))
        #expect(reader.identity(fromCookieHeaders: header) != nil, "cached, exp + 29 s")
        #expect(freshCodec().identity(fromCookieHeaders: header) != nil, "verified, exp + 29 s")
        time.advance(by: .seconds(2))
        #expect(reader.identity(fromCookieHeaders: header) == nil, "cached, exp + 31 s")
        #expect(freshCodec().identity(fromCookieHeaders: header) == nil, "verified, exp + 31 s")
        #expect(throws: AuthError(.expired, "")) { try freshCodec().identity(fromValue: cookie) }
    }

    @Test("the cookie's leeway is the contract's fixed 30 s: CLOCK_SKEW_LEEWAY (tokens, default 60 s) does not change it")
    func leewayIsFixed() throws {
        let base = ["SESSION_SECRET": Self.secret, "ENTRA_AUDIENCE": "app"]
        #expect(SessionCookieSettings.leeway == .seconds(30))
        #expect(ClockSkewLeeway.defaultValue == .seconds(60))
        #expect(try ClockSkewLeeway.fromEnvironment(base) == .seconds(60))
        for (text, seconds) in [("0", 0), ("45", 45), (" 300 ", 300)] {
            let environment = base.merging(["CLOCK_SKEW_LEEWAY": text]) { $1 }
            #expect(try SessionCookieSettings.fromEnvironment(environment)?.leeway == .seconds(30), "\(text)")
            #expect(try ClockSkewLeeway.fromEnvironment(environment) == .seconds(seconds), "\(text)")
        }
        for bad in ["-1", "301", "1.5", "thirty"] {
            let error = #expect(throws: AuthError.self, "\(bad)") {
                try ClockSkewLeeway.fromEnvironment(base.merging(["CLOCK_SKEW_LEEWAY": bad]) { $1 })
            }
            #expect(error?.code == .configuration)
            #expect(error?.reason.contains("CLOCK_SKEW_LEEWAY") == true)
        }
    }

    @Test("read rules of §8.4", arguments: readCases)
    func readRules(_ readCase: ReadCase) throws {
        let codec = try Self.codec()
        let value = try readCase.cookie()
        let identity = codec.identity(fromCookieHeaders: ["other=1; bms_session=\(value); more=2"])
        #expect((identity != nil) == readCase.isValid, "\(readCase.name)")
        // The field read in place gives the same verdict, uncached and then (if valid) cached.
        for round in ["uncached", "cached"] {
            let fresh = round == "uncached" ? try Self.codec() : codec
            var field = Array("other=1; bms_session=\(value); more=2".utf8)
            let inPlace = unsafe field.withUnsafeMutableBufferPointer { unsafe fresh.identity(fromCookieField: UnsafeBufferPointer($0)) }
            #expect((inPlace != nil) == readCase.isValid, "\(readCase.name), field bytes, \(round)")
        }
    }

    @Test("a field read in place: quotes, repeats, expiry and the order of same-named cookies")
    func fieldBytes() throws {
        let time = ManualTimeSource(wallSeconds: Self.now)
        let codec = try Self.codec(time: time)
        let valid = codec.value(for: Self.user)
        func read(_ field: String) -> VerifiedIdentity? {
            var bytes = Array(field.utf8)
            return unsafe bytes.withUnsafeMutableBufferPointer { unsafe codec.identity(fromCookieField: UnsafeBufferPointer($0)) }
        }
        #expect(read("bms_session=\"\(valid)\"")?.user == Self.user)
        #expect(read("bms_session=bogus; bms_session=\(valid)")?.user == Self.user)
        #expect(read("bms_session=; bms_session= \(valid) ")?.user == Self.user)
        #expect(read("xbms_session=\(valid)") == nil)
        #expect(read("") == nil)
        #expect(read("bms_session") == nil)
        // Cached, then expired: the cached entry is checked and dropped, as the string path does.
        #expect(read("bms_session=\(valid)") != nil)
        time.advance(by: .seconds(28800 + 31))
        #expect(read("bms_session=\(valid)") == nil)
        #expect(codec.identity(fromCookieHeaders: ["bms_session=\(valid)"]) == nil)
    }

    @Test("rotation: cookies of the previous secret are read; new cookies use the first")
    func rotation() throws {
        let old = "previous-secret-previous-secret-previous"
        let oldCookie = try Self.codec(secrets: [old]).value(for: Self.user)
        let rotated = try Self.codec(secrets: [Self.secret, old])
        #expect(try rotated.identity(fromValue: oldCookie).user == Self.user)
        let fresh = rotated.value(for: Self.user)
        #expect(throws: AuthError.self) { try Self.codec(secrets: [old]).identity(fromValue: fresh) }
        #expect(try Self.codec(secrets: [Self.secret]).identity(fromValue: fresh).user == Self.user)
    }

    @Test("an invalid first cookie of the same name does not hide a valid second one")
    func duplicateNames() throws {
        let codec = try Self.codec()
        let valid = codec.value(for: Self.user)
        #expect(codec.identity(fromCookieHeaders: ["bms_session=bogus; bms_session=\(valid)"]) != nil)
    }

    @Test("two valid session cookies: the first when both name the same user; none when they name different users")
    func twoValidCookies() throws {
        let time = ManualTimeSource(wallSeconds: Self.now)
        let codec = try Self.codec(time: time)
        let first = codec.value(for: Self.user)
        time.advance(by: .seconds(5))
        let renewed = codec.value(for: Self.user)
        let other = UserIdentity(objectID: "0b0b0b0b-0000-4000-8000-000000000002", email: "eve@example.com", tenantID: Self.tenant)
        let planted = codec.value(for: other)
        func read(_ field: String) -> VerifiedIdentity? {
            var bytes = Array(field.utf8)
            return unsafe bytes.withUnsafeMutableBufferPointer { unsafe codec.identity(fromCookieField: UnsafeBufferPointer($0)) }
        }
        // The same user twice (a renewal beside an older copy): the first is the session.
        #expect(codec.identity(fromCookieHeaders: ["bms_session=\(first); bms_session=\(renewed)"])?.user == Self.user)
        #expect(read("bms_session=\(renewed); bms_session=\(first)")?.user == Self.user)
        // Different users, in either order, in one field or in two: no session.
        #expect(codec.identity(fromCookieHeaders: ["bms_session=\(planted); bms_session=\(first)"]) == nil)
        #expect(codec.identity(fromCookieHeaders: ["bms_session=\(first); bms_session=\(planted)"]) == nil)
        #expect(codec.identity(fromCookieHeaders: ["bms_session=\(first)", "bms_session=\(planted)"]) == nil)
        #expect(read("bms_session=\(first); bms_session=\(planted)") == nil)
        #expect(read("bms_session=\(planted); bms_session=\(first)") == nil)
        // Across fields read in place, the agreement spans every field.
        var agreement = SessionCookieAgreement()
        for field in ["bms_session=\(first)", "theme=dark", "bms_session=\(planted)"] {
            var bytes = Array(field.utf8)
            unsafe bytes.withUnsafeMutableBufferPointer { unsafe codec.readSession(fromCookieField: UnsafeBufferPointer($0), into: &agreement) }
        }
        #expect(agreement.isConflicting && agreement.identity == nil)
    }
}
