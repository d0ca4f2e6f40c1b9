import AppNativeClient
import AppNativeCore
import AppNativeSignIn
import Testing

/// The groups-overage state (cache per user, single flight, Graph's throttling window, the
/// application token) driven with the time as input: no clock, no socket.
@Suite("Groups directory state")
struct GroupsDirectoryStateTests {
    typealias State = GroupsDirectoryState<Int>
    static let ada = State.UserKey(objectID: "11111111-2222-4333-8444-555555555555", tenantID: "t1")
    static let bob = State.UserKey(objectID: "22222222-2222-4333-8444-555555555555", tenantID: "t1")

    @Test("one lookup for many requests: the first fetches, the rest join it, then the cache answers until the TTL")
    func singleFlightThenCache() {
        var state = State(timeToLive: .seconds(300))
        #expect(state.lookup(Self.ada, waiter: 1, now: 0) == .fetch)
        #expect(state.lookup(Self.ada, waiter: 2, now: 0.1) == .joined)
        #expect(state.lookup(Self.ada, waiter: 3, now: 0.2) == .joined)
        // Another user is not held up by the first.
        #expect(state.lookup(Self.bob, waiter: 9, now: 0.2) == .fetch)
        #expect(state.finish(Self.ada, with: .groups(["g1", "g2"]), now: 1) == [1, 2, 3])
        #expect(state.lookup(Self.ada, waiter: 4, now: 2) == .cached(["g1", "g2"]))
        #expect(state.cachedGroups(of: Self.ada, now: 300.9) == ["g1", "g2"])
        #expect(state.cachedGroups(of: Self.ada, now: 301) == nil)
        #expect(state.lookup(Self.ada, waiter: 5, now: 301) == .fetch)
    }

    @Test("the same object id in another tenant is another user")
    func keyedByTenant() {
        var state = State(timeToLive: .seconds(300))
        _ = state.lookup(Self.ada, waiter: 1, now: 0)
        _ = state.finish(Self.ada, with: .groups(["g1"]), now: 0)
        let elsewhere = State.UserKey(objectID: Self.ada.objectID, tenantID: "t2")
        #expect(state.lookup(elsewhere, waiter: 2, now: 1) == .fetch)
    }

    @Test("a failure is never cached: the next request asks again")
    func failureNotCached() {
        var state = State(timeToLive: .seconds(300))
        _ = state.lookup(Self.ada, waiter: 1, now: 0)
        #expect(state.lookup(Self.ada, waiter: 2, now: 0) == .joined)
        #expect(state.finish(Self.ada, with: .failed, now: 1) == [1, 2])
        #expect(state.lookup(Self.ada, waiter: 3, now: 1) == .fetch)
        #expect(state.flightsInProgress == 1)
    }

    @Test("429 Retry-After: no lookup starts before it passes, cached users are still answered")
    func throttling() {
        var state = State(timeToLive: .seconds(300))
        _ = state.lookup(Self.bob, waiter: 1, now: 0)
        _ = state.finish(Self.bob, with: .groups(["g"]), now: 0)
        _ = state.lookup(Self.ada, waiter: 2, now: 10)
        #expect(state.finish(Self.ada, with: .throttled(retryAfterSeconds: 30), now: 10) == [2])
        #expect(state.lookup(Self.ada, waiter: 3, now: 10) == .throttled(retryAfterSeconds: 30))
        #expect(state.lookup(Self.ada, waiter: 4, now: 39.5) == .throttled(retryAfterSeconds: 1))
        #expect(state.lookup(Self.bob, waiter: 5, now: 20) == .cached(["g"]))
        #expect(state.lookup(Self.ada, waiter: 6, now: 40) == .fetch)
    }

    @Test("a TTL of 0 keeps nothing but still joins concurrent requests")
    func noCache() {
        var state = State(timeToLive: .zero)
        _ = state.lookup(Self.ada, waiter: 1, now: 0)
        #expect(state.lookup(Self.ada, waiter: 2, now: 0) == .joined)
        _ = state.finish(Self.ada, with: .groups(["g"]), now: 0)
        #expect(state.lookup(Self.ada, waiter: 3, now: 0) == .fetch)
        #expect(state.cachedUsers == 0)
    }

    @Test("memory is bounded by users and by group ids: the oldest entries make room")
    func bounded() {
        var state = State(timeToLive: .seconds(300), capacity: 3, maxCachedGroups: 10)
        for index in 0..<50 {
            let key = State.UserKey(objectID: "u\(index)", tenantID: "t")
            _ = state.lookup(key, waiter: index, now: Double(index))
            _ = state.finish(key, with: .groups(["a", "b", "c"]), now: Double(index))
            #expect(state.cachedUsers <= 3)
            #expect(state.cachedGroupCount <= 10)
        }
        #expect(state.cachedGroups(of: State.UserKey(objectID: "u49", tenantID: "t"), now: 50) == ["a", "b", "c"])
        #expect(state.cachedGroups(of: State.UserKey(objectID: "u0", tenantID: "t"), now: 50) == nil)
        // An answer larger than the whole budget is used, not kept.
        let big = State.UserKey(objectID: "big", tenantID: "t")
        _ = state.lookup(big, waiter: 99, now: 60)
        #expect(state.finish(big, with: .groups((0..<11).map { "g\($0)" }), now: 60) == [99])
        #expect(state.cachedGroups(of: big, now: 60) == nil)
        #expect(state.cachedGroupCount <= 10)
    }

    @Test("the application token is reused until near its expiry, and dropped when Graph refuses it")
    func applicationToken() {
        var state = State(timeToLive: .seconds(300))
        #expect(state.applicationToken(now: 0) == nil)
        state.keepApplicationToken(Secret("t1"), expiresInSeconds: 3599, now: 100)
        #expect(state.applicationToken(now: 100)?.revealed == "t1")
        #expect(state.applicationToken(now: 100 + 3599 - 301)?.revealed == "t1")
        #expect(state.applicationToken(now: 100 + 3599 - 300) == nil)
        // A short-lived token is renewed at half its life.
        state.keepApplicationToken(Secret("t2"), expiresInSeconds: 60, now: 0)
        #expect(state.applicationToken(now: 29)?.revealed == "t2")
        #expect(state.applicationToken(now: 30) == nil)
        state.keepApplicationToken(Secret("t3"), expiresInSeconds: 3599, now: 0)
        state.forgetApplicationToken()
        #expect(state.applicationToken(now: 1) == nil)
    }
}

/// Graph's and the token endpoint's answers, read strictly at the boundary.
@Suite("Graph and client-credentials answers")
struct GraphAnswerTests {
    static let context = #""@odata.context":"https://graph.microsoft.com/v1.0/$metadata#Collection(Edm.String)""#

    @Test("getMemberGroups: the documented success and error shapes")
    func memberGroups() {
        let ok = "{\(Self.context),\"value\":[\"fee2c45b-915a-4a64-b130-f4eb9e75525e\",\"4fe90ae7-065a-478b-9400-e0a0e1cbd540\"]}"
        #expect(GraphMemberGroups.answer(status: 200, headers: [], body: Array(ok.utf8))
            == .groups(["fee2c45b-915a-4a64-b130-f4eb9e75525e", "4fe90ae7-065a-478b-9400-e0a0e1cbd540"]))
        #expect(GraphMemberGroups.answer(status: 200, headers: [], body: Array("{\(Self.context),\"value\":[]}".utf8)) == .groups([]))
        let denied = #"{"error":{"code":"Authorization_RequestDenied","message":"Insufficient privileges to complete the operation.","innerError":{"date":"2026-12-02T10:00:00","request-id":"x"}}}"#
        #expect(GraphMemberGroups.answer(status: 403, headers: [], body: Array(denied.utf8)) == .refused(status: 403, code: "Authorization_RequestDenied"))
        let throttled = [HTTPHeaderField(name: "Retry-After", value: "7")]
        #expect(GraphMemberGroups.answer(status: 429, headers: throttled, body: []) == .throttled(retryAfterSeconds: 7))
        #expect(GraphMemberGroups.answer(status: 429, headers: [], body: []) == .refused(status: 429, code: nil))
        #expect(GraphMemberGroups.answer(status: 503, headers: [HTTPHeaderField(name: "retry-after", value: "99999")], body: [])
            == .throttled(retryAfterSeconds: RetryAfter.maxSeconds))
        // An error code that is not a plain token never reaches a log.
        let echoed = #"{"error":{"code":"bad code\r\nX: y","message":"m"}}"#
        #expect(GraphMemberGroups.answer(status: 400, headers: [], body: Array(echoed.utf8)) == .refused(status: 400, code: nil))
    }

    @Test("getMemberGroups: anything but an array of plain id strings is malformed", arguments: [
        "", "[]", "null", "{}", #"{"value":null}"#, #"{"value":"g1"}"#, #"{"value":[1]}"#, #"{"value":[""]}"#,
        #"{"value":["a,b"]}"#, #"{"value":["a b"]}"#, #"{"value":["é"]}"#, #"{"value":[["g"]]}"#, "{\"value\":[\"g\"]",
    ])
    func malformed(body: String) {
        guard case .malformed = GraphMemberGroups.answer(status: 200, headers: [], body: Array(body.utf8)) else {
            Issue.record("accepted \(body.debugDescription)")
            return
        }
    }

    @Test("getMemberGroups: more than 11,000 groups, an overlong id, or an oversized answer is refused")
    func limits() {
        let many = "{\"value\":[" + Array(repeating: "\"g\"", count: GraphMemberGroups.maxGroups + 1).joined(separator: ",") + "]}"
        #expect(GraphMemberGroups.answer(status: 200, headers: [], body: Array(many.utf8)) != .groups([]))
        if case .groups = GraphMemberGroups.answer(status: 200, headers: [], body: Array(many.utf8)) { Issue.record("too many accepted") }
        let long = "{\"value\":[\"" + String(repeating: "a", count: GraphMemberGroups.maxGroupIDBytes + 1) + "\"]}"
        if case .groups = GraphMemberGroups.answer(status: 200, headers: [], body: Array(long.utf8)) { Issue.record("long id accepted") }
        let huge = "{\"value\":[\"g\"],\"pad\":\"" + String(repeating: " ", count: GraphMemberGroups.maxAnswerBytes) + "\"}"
        if case .groups = GraphMemberGroups.answer(status: 200, headers: [], body: Array(huge.utf8)) { Issue.record("oversized accepted") }
    }

    @Test("every single byte as a whole answer, and every byte in place of a group id: no trap, never a non-plain id")
    func everyByte() {
        for byte in UInt8.min...UInt8.max {
            _ = GraphMemberGroups.answer(status: 200, headers: [], body: [byte])
            let body = Array(#"{"value":["g"#.utf8) + [byte] + Array(#""]}"#.utf8)
            if case .groups(let groups) = GraphMemberGroups.answer(status: 200, headers: [], body: body) {
                #expect(groups.allSatisfy { $0.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ",") } }, "byte \(byte)")
            }
        }
    }

    @Test("the request: POST to users/{oid}/getMemberGroups with the documented body; an oid that is not plain is refused")
    func request() throws {
        let request = try #require(
            GraphMemberGroups.request(
                graphURL: "https://graph.microsoft.com/", objectID: "11111111-2222-4333-8444-555555555555", applicationToken: Secret("tok"),
                timeout: .seconds(5)))
        #expect(request.method == "POST")
        #expect(request.url == "https://graph.microsoft.com/v1.0/users/11111111-2222-4333-8444-555555555555/getMemberGroups")
        #expect(request.body == Array(#"{"securityEnabledOnly":false}"#.utf8))
        #expect(request.headers.contains { $0.name == "Authorization" && $0.value == "Bearer tok" })
        #expect(request.timeout == .seconds(5))
        #expect(!request.followsRedirects)
        for objectID in ["", "..", "a/b", "a?b", "a%2F", "a b", String(repeating: "a", count: 65)] {
            #expect(GraphMemberGroups.request(graphURL: "https://g", objectID: objectID, applicationToken: Secret("t"), timeout: .seconds(1)) == nil)
        }
    }

    @Test("client credentials: the documented success (v2 number, v1 string expires_in) and error shapes")
    func applicationToken() throws {
        let v2 = #"{"token_type":"Bearer","expires_in":3599,"ext_expires_in":3599,"access_token":"eyJ0eXAi.eyJhdWQi.sig"}"#
        let token = try TokenEndpointClient.applicationToken(status: 200, headers: [], body: Array(v2.utf8))
        #expect(token.accessToken.revealed == "eyJ0eXAi.eyJhdWQi.sig")
        #expect(token.expiresInSeconds == 3599)
        let v1 = #"{"token_type":"Bearer","expires_in":"3599","ext_expires_in":"3599","expires_on":"1700000000","resource":"https://graph.microsoft.com","access_token":"a.b.c"}"#
        #expect(try TokenEndpointClient.applicationToken(status: 200, headers: [], body: Array(v1.utf8)).expiresInSeconds == 3599)
        let invalidClient = #"{"error":"invalid_client","error_description":"AADSTS7000215: Invalid client secret provided.","error_codes":[7000215],"timestamp":"2026-12-02 10:00:00Z","trace_id":"t","correlation_id":"c"}"#
        #expect(throws: ApplicationTokenFailure(.refused(status: 401, oauthError: "invalid_client"), entraErrorCodes: [7000215])) {
            try TokenEndpointClient.applicationToken(status: 401, headers: [], body: Array(invalidClient.utf8))
        }
        do {
            _ = try TokenEndpointClient.applicationToken(status: 401, headers: [], body: Array(invalidClient.utf8))
        } catch {
            #expect(error.entraErrors == "AADSTS7000215")
            #expect(!"\(error)".contains("Invalid client secret"))
        }
        for bad in [
            #"{"token_type":"Bearer","expires_in":3599}"#, #"{"token_type":"mac","expires_in":3599,"access_token":"a"}"#,
            #"{"token_type":"Bearer","expires_in":0,"access_token":"a"}"#, #"{"token_type":"Bearer","expires_in":"1e3","access_token":"a"}"#,
            #"{"token_type":"Bearer","access_token":"a"}"#, #"{"token_type":"Bearer","expires_in":3599,"access_token":"a\nb"}"#, "[]",
        ] {
            #expect(throws: ApplicationTokenFailure.self, "\(bad)") { try TokenEndpointClient.applicationToken(status: 200, headers: [], body: Array(bad.utf8)) }
        }
    }

    @Test("Retry-After: delay seconds only, capped; a date, a negative or disagreeing fields read as absent")
    func retryAfter() {
        #expect(RetryAfter.seconds(in: [HTTPHeaderField(name: "Retry-After", value: " 12 ")]) == 12)
        #expect(RetryAfter.seconds(in: [HTTPHeaderField(name: "Retry-After", value: "Wed, 21 Oct 2015 07:28:00 GMT")]) == nil)
        #expect(RetryAfter.seconds(in: [HTTPHeaderField(name: "Retry-After", value: "-1")]) == nil)
        #expect(RetryAfter.seconds(in: [HTTPHeaderField(name: "Retry-After", value: "1"), HTTPHeaderField(name: "Retry-After", value: "2")]) == nil)
        #expect(RetryAfter.seconds(in: [HTTPHeaderField(name: "Retry-After", value: "99999999999")]) == nil)
    }
}
