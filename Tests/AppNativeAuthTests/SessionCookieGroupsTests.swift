import AppNativeAuth
import AppNativeCore
import Testing

/// The session cookie carries a user's groups within `SessionCookieCodec.groupsBudget`, beyond it
/// (or after a token's overage) `hasgroups: true`, and the client application; an application
/// never gets a cookie that reads back.
@Suite("Session cookie: groups and caller")
struct SessionCookieGroupsTests {
    static func roundTrip(_ user: UserIdentity) throws -> VerifiedIdentity? {
        let codec = try SessionCookieTests.codec()
        return try? codec.identity(fromValue: codec.value(for: user))
    }

    @Test("groups within the budget travel in the cookie, with the client id")
    func withinBudget() throws {
        var user = SessionCookieTests.user
        user.groups = (1...SessionCookieCodec.groupsBudget).map { "group-\($0)" }
        user.clientID = "ios-app"
        let read = try #require(try Self.roundTrip(user))
        #expect(read.user.groups == user.groups)
        #expect(!read.user.hasGroupsOverage)
        #expect(read.user.clientID == "ios-app")
        #expect(read.user.callerType == .user)
    }

    @Test("beyond the budget, or after a token's overage, the cookie says the groups are elsewhere (one claim)")
    func beyondBudget() throws {
        var many = SessionCookieTests.user
        many.groups = (0...SessionCookieCodec.groupsBudget).map { "0a1b2c3d-0000-4000-8000-0000000000\($0 + 10)" }
        let codec = try SessionCookieTests.codec()
        let value = codec.value(for: many)
        #expect(!value.contains("group"))
        let read = try #require(try Self.roundTrip(many))
        #expect(read.user.groups.isEmpty)
        #expect(read.user.hasGroupsOverage)
        #expect(value.utf8.count < codec.value(for: SessionCookieTests.user).utf8.count + 40)
        var overage = SessionCookieTests.user
        overage.hasGroupsOverage = true
        #expect(try #require(try Self.roundTrip(overage)).user.hasGroupsOverage)
    }

    @Test("an application's identity never makes a cookie that reads back")
    func applicationHasNoCookie() throws {
        let app = UserIdentity.application(servicePrincipalID: "sp", clientID: "svc", tenantID: SessionCookieTests.tenant, roles: ["r"])
        #expect(try Self.roundTrip(app) == nil)
    }
}
