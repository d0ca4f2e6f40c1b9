@testable import AppNativeAuth
import AppNativeCrypto
import AppNativeJSON
import AppNativeTesting
import Testing

/// The identity assertion states the identity it is asked for, whatever it signed before.
@Suite struct IdentityAssertionSignerTests {
    static func signer(time: ManualTimeSource = ManualTimeSource(wallSeconds: 1_800_000_000), cacheLimit: Int = 50_000) throws
        -> IdentityAssertionSigner
    {
        IdentityAssertionSigner(keys: [try P256SigningKey.generate()], audience: "upstream", time: time, cacheLimit: cacheLimit)
    }

    static func identity(_ user: UserIdentity, _ method: AuthenticationMethod = .token) -> VerifiedIdentity {
        VerifiedIdentity(user: user, method: method, expiresAt: 1_800_003_600)
    }

    /// The assertion's claims (its signature is checked by the integration tests).
    static func claims(_ assertion: String) throws -> JSONObject {
        let segments = assertion.split(separator: ".")
        try #require(segments.count == 3)
        let payload = try #require(Base64URL.decode(segments[1]))
        return try #require(try JSONParser().parse(payload).objectValue)
    }

    static let base = UserIdentity(objectID: "oid-1", email: "a@example.com", tenantID: "tenant-1", name: "A", roles: ["Reader"])

    @Test("identities that differ in any field, roles and groups included, never share an assertion")
    func everyFieldIsKeyed() throws {
        let signer = try Self.signer()
        var promoted = Self.base
        promoted.roles = ["Reader", "Admin"]
        var reordered = Self.base
        reordered.roles = ["Admin", "Reader"]
        var demoted = Self.base
        demoted.roles = []
        var grouped = Self.base
        grouped.groups = ["g-1"]
        let first = try Self.claims(signer.assertion(for: Self.identity(Self.base)))
        #expect(first["roles"] == ["Reader"])
        for (user, roles) in [(promoted, ["Reader", "Admin"]), (reordered, ["Admin", "Reader"]), (Self.base, ["Reader"])] {
            let claims = try Self.claims(signer.assertion(for: Self.identity(user)))
            #expect(claims["roles"] == .array(roles.map(JSONValue.string)), "\(roles)")
        }
        #expect(try Self.claims(signer.assertion(for: Self.identity(demoted)))["roles"] == nil)
        // A group change makes a new entry (the assertion states no groups, so its claims match).
        let before = signer.cachedIdentityCount
        _ = signer.assertion(for: Self.identity(grouped))
        #expect(signer.cachedIdentityCount == before + 1)
        // The method is part of the identity stated (`amr`).
        #expect(try Self.claims(signer.assertion(for: Self.identity(Self.base, .cookie)))["amr"] == "cookie")
        #expect(try Self.claims(signer.assertion(for: Self.identity(Self.base)))["amr"] == "token")
        // The same identity reuses its assertion.
        #expect(signer.assertion(for: Self.identity(promoted)) == signer.assertion(for: Self.identity(promoted)))
    }

    @Test("fields that a joined key would run together stay apart: a separator inside a name, an absent name and an empty one")
    func noJoinCollisions() throws {
        let signer = try Self.signer()
        let pairs: [(UserIdentity, UserIdentity)] = [
            (UserIdentity(objectID: "o", email: "e", tenantID: "t", name: "x\u{1F}y", upn: nil),
             UserIdentity(objectID: "o", email: "e", tenantID: "t", name: "x", upn: "y\u{1F}")),
            (UserIdentity(objectID: "o", email: "e", tenantID: "t", name: nil), UserIdentity(objectID: "o", email: "e", tenantID: "t", name: "")),
            (UserIdentity(objectID: "o", email: "e", tenantID: "t", roles: ["a,b"]), UserIdentity(objectID: "o", email: "e", tenantID: "t", roles: ["a", "b"])),
        ]
        for (one, other) in pairs {
            let first = try Self.claims(signer.assertion(for: Self.identity(one)))
            let second = try Self.claims(signer.assertion(for: Self.identity(other)))
            #expect(first["name"] == one.name.map(JSONValue.string))
            #expect(first["upn"] == one.upn.map(JSONValue.string))
            #expect(second["name"] == other.name.map(JSONValue.string))
            #expect(second["upn"] == other.upn.map(JSONValue.string))
            #expect(second["roles"] == (other.roles.isEmpty ? nil : .array(other.roles.map(JSONValue.string))))
        }
    }

    @Test("the cache stays bounded: assertions past reuse go first, and a cache of live ones is emptied")
    func boundedCache() throws {
        let time = ManualTimeSource(wallSeconds: 1_800_000_000)
        let signer = try Self.signer(time: time, cacheLimit: 4)
        func user(_ index: Int) -> VerifiedIdentity {
            Self.identity(UserIdentity(objectID: "oid-\(index)", email: "e", tenantID: "t"))
        }
        for index in 0..<4 { _ = signer.assertion(for: user(index)) }
        #expect(signer.cachedIdentityCount == 4)
        // Three of them age past reuse; the fourth is re-signed now.
        time.advance(by: .seconds(200))
        _ = signer.assertion(for: user(3))
        _ = signer.assertion(for: user(4))
        #expect(signer.cachedIdentityCount == 2, "the stale entries were dropped, the live one kept")
        for index in 5..<40 {
            _ = signer.assertion(for: user(index))
            #expect(signer.cachedIdentityCount <= 4)
        }
        // Whatever was dropped, each identity still gets its own assertion.
        #expect(try Self.claims(signer.assertion(for: user(1)))["sub"] == "oid-1")
    }
}
