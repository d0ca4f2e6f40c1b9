import AppNativeDevPeers
import AppNativeHTTP
import AppNativeTesting
import Foundation
import Testing

/// A `groups` rule on the browser sign-in path: the ID token's groups decide at the callback, and
/// the session cookie it issues carries them, so the rule decides the same for the browser's
/// next requests.
@Suite("Groups through the browser sign-in", .serialized)
struct EntraGroupsBrowserSignInTests {
    @Test("a member signs in and passes the groups rule with the cookie; a non-member is refused at the callback")
    func groupsRuleAcrossSignIn() async throws {
        let policy = try EntraTokenKindsTests.policy(#"{"rules": [{"path": "/team", "groups": ["\#(DevSignInUser.approversGroupID)"]}]}"#)
        let setup = try await BrowserSignInTests.start(["ACCESS_POLICY_FILE": policy])
        defer { setup.stop() }
        let (authorize, stateCookie) = try await BrowserSignInTests.startSignIn(setup, "/team/board")
        let finished = try await BrowserSignInTests.callback(setup, try await BrowserSignInTests.choose("sam", at: authorize), cookie: stateCookie)
        #expect(finished.status == 302)
        #expect(finished.head.headers.first("Location") == "/team/board")
        let session = try #require(finished.head.headers.values("Set-Cookie").first { $0.hasPrefix("bms_session=") })
        let cookie = BrowserSignInTests.pair(session)
        let port = setup.port
        let board = try await blocking { try BrowserSignInTests.send(port: port, "/team/board", headers: ["Cookie": cookie]) }
        #expect(board.status == 404)  // allowed: the upstream has no such page
        let echo = try await blocking { try BrowserSignInTests.send(port: port, "/echo", headers: ["Cookie": cookie]) }
        #expect(try EntraTokenKindsTests.echoed(echo, "X-AppNative-User-Groups") == DevSignInUser.approversGroupID)

        let (otherAuthorize, otherState) = try await BrowserSignInTests.startSignIn(setup, "/team/board")
        let refused = try await BrowserSignInTests.callback(
            setup, try await BrowserSignInTests.choose("zoe", at: otherAuthorize), cookie: otherState)
        #expect(refused.status == 403)
        #expect(!refused.head.headers.values("Set-Cookie").contains { $0.hasPrefix("bms_session=") })
    }
}
