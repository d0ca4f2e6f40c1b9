import AppNativeHTTP
@testable import AppNativeGateway
import Testing

/// The path rules as values, without a socket: what `AdversarialPathTests` and
/// `AdversarialForwardAuthTests` hold through the binary, here case by case.
@Suite("Adversarial: path rules as values")
struct AdversarialPathRuleValueTests {
    @Test("a prefix matches on segment boundaries, with or without its trailing slash", arguments: [
        ("/public", "/public", true), ("/public", "/public/", true), ("/public", "/public/x", true),
        ("/public/", "/public", true), ("/public/", "/public/x/y", true),
        ("/public", "/publication-admin", false), ("/public/", "/publicx", false), ("/public", "/pub", false),
        ("/", "/anything", true), ("/", "/", true), ("/a/b", "/a/bc", false), ("/a/b", "/a/b;x", false),
    ])
    func prefixBoundaries(_ prefix: String, _ path: String, _ matches: Bool) {
        #expect(PathPrefix(prefix).matches(path) == matches, "\(prefix) on \(path)")
    }

    @Test("a dot segment is refused with or without ; parameters; a ; in an ordinary segment is kept", arguments: [
        ("/public/..;/admin", nil), ("/public/.;x/admin", nil), ("/a/..;", nil), ("/;x", nil), ("/a/;x/b", nil),
        ("/public/%2e%2e;/admin", nil), ("/public/%2E;/admin", nil), ("/a/../b", nil), ("/a/./b", nil),
        ("/public/a;b/c", "/public/a;b/c"), ("/app;jsessionid=1", "/app;jsessionid=1"), ("/a/..x;y/b", "/a/..x;y/b"),
        ("/a/b;", "/a/b;"),
    ] as [(String, String?)])
    func dotSegments(_ target: String, _ checked: String?) {
        #expect(RequestPath.checked(target) == checked, "\(target)")
        // The general path (targets with bytes outside visible ASCII) applies the same rules.
        #expect(RequestPath.checked(target + "/\u{E9}").map { String($0.dropLast(2)) } == checked, "\(target) (non-ASCII)")
    }

    @Test("the readings of a path: as sent, and without ; parameters")
    func readings() {
        #expect(DecisionPath("/admin;x/users").routed == "/admin/users")
        #expect(DecisionPath("/plain/path").routed == "/plain/path")
        let mixed = DecisionPath("/public;x/a")
        #expect(mixed.everyReading { PathPrefix("/public").matches($0) } == false)
        #expect(DecisionPath("/public/a;b/c").everyReading { PathPrefix("/public").matches($0) })
    }

    static func head(_ fields: [(String, String)]) -> HTTPRequestHead {
        var headers = HTTPHeaders()
        for (name, value) in fields { headers.add(name: name, value: value) }
        return HTTPRequestHead(method: "GET", target: "/.auth/verify", headers: headers)
    }

    @Test("the original request behind verify: either family, agreeing families, nothing guessed")
    func forwardAuthOriginal() throws {
        let nginx = try ForwardAuthRequest.original(of: Self.head([("X-Original-URI", "/a?b"), ("X-Original-Method", "POST")])).get()
        #expect(nginx.method == "POST" && nginx.target == "/a?b")
        let caddy = try ForwardAuthRequest.original(of: Self.head([("X-Forwarded-Uri", "/c"), ("X-Forwarded-Method", "DELETE")])).get()
        #expect(caddy.method == "DELETE" && caddy.target == "/c")
        let both = Self.head([("X-Original-URI", "/c"), ("X-Forwarded-Uri", "/c"), ("X-Forwarded-Method", "GET")])
        #expect((try? ForwardAuthRequest.original(of: both).get())?.target == "/c")
        let refused: [[(String, String)]] = [
            [],
            [("X-Original-URI", "/a")],
            [("X-Original-Method", "GET")],
            [("X-Original-URI", "/admin"), ("X-Forwarded-Uri", "/public"), ("X-Original-Method", "GET")],
            [("X-Original-URI", "/a"), ("X-Original-Method", "POST"), ("X-Forwarded-Method", "GET")],
            [("X-Original-URI", "/a"), ("X-Original-URI", "/b"), ("X-Original-Method", "GET")],
            [("X-Original-URI", "/a"), ("X-Original-Method", "post")],
            [("X-Original-URI", "/a"), ("X-Original-Method", "CONNECT")],
        ]
        for fields in refused {
            guard case .failure = ForwardAuthRequest.original(of: Self.head(fields)) else {
                Issue.record("accepted \(fields)")
                continue
            }
        }
    }
}
