import AppNativeDevPeers
import AppNativeHTTP
import AppNativeJSON
import AppNativeTesting
import Foundation
import Testing

/// The access log (docs/operations.md, "Logs"): one JSON line per request with the
/// request id, method, path without the query, status, bytes and durations, the object id and
/// auth method once known, and never the token, the cookie or the email.
@Suite("Access log", .serialized)
struct AccessLogTests {
    @Test("one JSON line per request: id, method, path without query, status, bytes, durations, oid; no secrets")
    func accessLogLines() async throws {
        let fixture = try await ProxyFixture.start(["PUBLIC_PATHS": "/public", "ACCESS_LOG": "true"])
        defer { fixture.stop() }
        let port = fixture.port
        let token = try IdentityTests.token()
        let signedIn = try await blocking {
            try RawHTTPClient.get(
                port: port, "/echo?secret-query=1", headers: ["Authorization": "Bearer \(token)", "X-Request-Id": "req-abc-123"])
        }
        #expect(signedIn.status == 200)
        let cookie = try #require(signedIn.head.headers.first("Set-Cookie")?.split(separator: ";").first.map(String.init))
        let byCookie = try await blocking { try RawHTTPClient.get(port: port, "/echo", headers: ["Cookie": cookie]) }
        #expect(byCookie.status == 200)
        let refused = try await blocking { try RawHTTPClient.get(port: port, "/echo", headers: ["Authorization": "Bearer garbage"]) }
        #expect(refused.status == 401)

        var lines: [JSONObject] = []
        var raw: [String] = []
        while lines.count < 3 {
            let line = try #require(await blocking { fixture.gateway.nextOutputLine() }, "the gateway closed its output")
            raw.append(line)
            let object = try #require(try JSONParser().parse(line).objectValue, "not a JSON object: \(line)")
            if object["type"]?.stringValue == "access" { lines.append(object) }
        }
        let user = DevIdentityProvider.User()
        let token0 = lines[0]
        #expect(token0["request_id"]?.stringValue == "req-abc-123")
        #expect(token0["method"]?.stringValue == "GET")
        #expect(token0["path"]?.stringValue == "/echo")
        #expect(token0["status"]?.numberValue?.int64 == 200)
        #expect((token0["bytes"]?.numberValue?.int64 ?? 0) > 0)
        #expect(token0["duration_ms"]?.numberValue?.double != nil)
        #expect(token0["upstream_ms"]?.numberValue?.double != nil)
        #expect(token0["user.oid"]?.stringValue == user.objectID)
        #expect(token0["auth.method"]?.stringValue == "token")
        #expect(lines[1]["auth.method"]?.stringValue == "cookie")
        #expect(lines[1]["user.oid"]?.stringValue == user.objectID)
        #expect(lines[1]["request_id"]?.stringValue?.isEmpty == false, "a generated request id")
        #expect(lines[2]["status"]?.numberValue?.int64 == 401)
        #expect(lines[2]["auth.reason"]?.stringValue != nil)
        #expect(lines[2]["user.oid"] == nil)
        let everything = raw.joined(separator: "\n")
        let cookieValue = String(cookie.split(separator: "=", maxSplits: 1)[1])
        for secret in [token, String(token.prefix(40)), cookieValue, "secret-query", user.email, "garbage"] {
            #expect(!everything.contains(secret), "the access log carries \(secret.prefix(20))…")
        }
    }
}
