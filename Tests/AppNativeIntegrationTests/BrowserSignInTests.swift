import AppNativeDevPeers
import AppNativeHTTP
import AppNativeServer
import AppNativeSignIn
import AppNativeTesting
import Foundation
import Testing

/// The browser sign-in through the real gateway binary, against the dev identity provider:
/// who is redirected, the callback, and every refusal a browser can meet.
@Suite("Browser sign-in at the gateway", .serialized)
struct BrowserSignInTests {
    static let navigation = [
        "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document", "Sec-Fetch-Site": "none",
        "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    ]

    /// A gateway with sign-in on and the dev identity provider it signs in through.
    struct Setup {
        let fixture: ProxyFixture
        let provider: DevSignInServer
        var port: Int { fixture.port }
        var callbackURI: String { "http://127.0.0.1:\(port)/.auth/callback" }

        func stop() {
            fixture.stop()
            provider.shutdown()
        }
    }

    static func start(_ extra: [String: String] = [:], quirks: DevSignInQuirks = DevSignInQuirks()) async throws -> Setup {
        let provider = try DevSignInServer(provider: ProxyFixture.devProvider(), listenAddress: try SocketAddress(parsing: "127.0.0.1:0"))
        provider.behave(quirks)
        provider.start()
        var environment = [
            "PUBLIC_PATHS": "/public", "BROWSER_SIGN_IN": "true", "ENTRA_CLIENT_ID": DevIdentityProvider.signInClientID,
            "ENTRA_CLIENT_SECRET": DevIdentityProvider.signInClientSecret, "OIDC_DISCOVERY_URL": provider.discoveryURL,
        ]
        environment.merge(extra) { $1 }
        let fixture = try await ProxyFixture.start(environment)
        provider.register(redirectURI: "http://127.0.0.1:\(fixture.port)/.auth/callback")
        return Setup(fixture: fixture, provider: provider)
    }

    static func send(port: Int, _ target: String, method: String = "GET", headers: [String: String] = [:], body: [UInt8] = []) throws
        -> RawHTTPClient.Response
    {
        let client = try RawHTTPClient(port: port)
        var request = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        if method == "POST" { request += "Content-Length: \(body.count)\r\n" }
        try client.send(Array((request + "\r\n").utf8) + body)
        return try client.readResponse(to: method)
    }

    /// `name=value` of a `Set-Cookie` field.
    static func pair(_ setCookie: String) -> String { String(setCookie.prefix { $0 != ";" }) }

    /// (port, target) of an absolute loopback URL.
    static func split(_ url: String) throws -> (port: Int, target: String) {
        let rest = try #require(url.hasPrefix("http://127.0.0.1:") ? url.dropFirst("http://127.0.0.1:".count) : nil)
        let port = try #require(Int(rest.prefix { $0.isNumber }))
        return (port, String(rest.drop { $0.isNumber }))
    }

    /// The redirect of a navigation to `target`, and the state cookie it sets.
    static func startSignIn(_ setup: Setup, _ target: String) async throws -> (authorize: String, stateCookie: String) {
        let port = setup.port
        let response = try await blocking { try send(port: port, target, headers: navigation) }
        #expect(response.status == 302)
        let location = try #require(response.head.headers.first("Location"))
        let cookie = try #require(response.head.headers.values("Set-Cookie").first { $0.contains(SignInStateCookie.namePrefix) })
        return (location, pair(cookie))
    }

    /// Chooses `user` on the dev provider's sign-in page; returns the callback URL it redirects to.
    static func choose(_ user: String, at authorize: String) async throws -> String {
        let (port, target) = try split(authorize)
        let query = FormURLEncoding.parseQuery(ofTarget: target)
        let path = String(target.prefix { $0 != "?" })
        let form = FormURLEncoding.serialize(query + (user == "cancel" ? [("cancel", "1")] : [("user", user)]))
        let response = try await blocking {
            try send(port: port, path, method: "POST", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: form)
        }
        #expect(response.status == 302 || response.status == 303)
        return try #require(response.head.headers.first("Location"))
    }

    static func callback(_ setup: Setup, _ url: String, cookie: String?) async throws -> RawHTTPClient.Response {
        let (_, target) = try split(url)
        let port = setup.port
        var headers = navigation
        headers["Sec-Fetch-Site"] = "cross-site"
        if let cookie { headers["Cookie"] = cookie }
        let fields = headers
        return try await blocking { try send(port: port, target, headers: fields) }
    }

    @Test("a navigation is sent to the provider with code flow, PKCE S256, state, nonce and the state cookie")
    func navigationIsRedirected() async throws {
        let setup = try await Self.start()
        defer { setup.stop() }
        let (authorize, _) = try await Self.startSignIn(setup, "/app?x=1")
        let port = setup.port
        let response = try await blocking { try Self.send(port: port, "/app?x=1", headers: Self.navigation) }
        let cookie = try #require(response.head.headers.values("Set-Cookie").first)
        #expect(cookie.contains("; Path=/.auth/callback;") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"))
        #expect(!cookie.contains("Secure"))  // plain http
        #expect(response.head.headers.first("Cache-Control") == "no-store")
        #expect(authorize.hasPrefix(setup.provider.issuer + "/oauth2/v2.0/authorize?"))
        let query = Dictionary(FormURLEncoding.parseQuery(ofTarget: authorize).map { ($0.name, $0.value) }) { a, _ in a }
        #expect(query["response_type"] == "code")
        #expect(query["response_mode"] == "query")
        #expect(query["code_challenge_method"] == "S256")
        #expect(query["client_id"] == DevIdentityProvider.signInClientID)
        #expect(query["redirect_uri"] == setup.callbackURI)
        #expect(query["scope"] == "openid profile email")
        #expect((query["state"]?.count ?? 0) >= 43 && (query["nonce"]?.count ?? 0) >= 43 && (query["code_challenge"]?.count ?? 0) == 43)
    }

    @Test("fetch/XHR, sub-resources, EventSource, WebSocket, native routes and Authorization keep their 401")
    func othersKeepTheirAnswers() async throws {
        let setup = try await Self.start()
        defer { setup.stop() }
        let port = setup.port
        let cases: [(String, [String: String])] = [
            ("/app", ["Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty", "Accept": "*/*"]),
            ("/app", ["Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image", "Accept": "image/*"]),
            ("/app", ["Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "iframe", "Accept": "text/html"]),
            ("/app", ["Accept": "*/*"]),
            ("/app", ["Accept": "application/json"]),
            ("/events", ["Accept": "text/event-stream", "Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty"]),
            ("/app", Self.navigation.merging(["Authorization": "Bearer garbage"]) { $1 }),
            ("/api/widgets", Self.navigation),
        ]
        for (target, headers) in cases {
            let response = try await blocking { try Self.send(port: port, target, headers: headers) }
            #expect(response.status == 401, "\(target) \(headers)")
            #expect(response.head.headers.first("Location") == nil, "\(target) \(headers)")
            #expect(response.head.headers.first("Content-Type") == "application/json", "\(target) \(headers)")
        }
        let webSocket = try await blocking {
            try Self.send(port: port, "/ws", headers: [
                "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
                "Accept": "text/html",
            ])
        }
        #expect(webSocket.status == 401)
    }

    @Test("sign-in off (the default): a navigation gets today's 401 and login is 404")
    func offChangesNothing() async throws {
        let fixture = try await ProxyFixture.start(["PUBLIC_PATHS": "/public"])
        defer { fixture.stop() }
        let port = fixture.port
        let response = try await blocking { try Self.send(port: port, "/app", headers: Self.navigation) }
        #expect(response.status == 401)
        #expect(response.head.headers.first("Location") == nil)
        let login = try await blocking { try Self.send(port: port, "/.auth/login?redirect=/app", headers: Self.navigation) }
        #expect(login.status == 404)
    }

    @Test("the whole flow: back on the original URL with its query, signed in by the session cookie")
    func signsIn() async throws {
        let setup = try await Self.start()
        defer { setup.stop() }
        let (authorize, stateCookie) = try await Self.startSignIn(setup, "/echo/app?x=1&y=two")
        let callback = try await Self.choose("zoe", at: authorize)
        #expect(callback.hasPrefix(setup.callbackURI + "?"))
        let finished = try await Self.callback(setup, callback, cookie: stateCookie)
        #expect(finished.status == 302)
        #expect(finished.head.headers.first("Location") == "/echo/app?x=1&y=two")
        let setCookies = finished.head.headers.values("Set-Cookie")
        let session = try #require(setCookies.first { $0.hasPrefix("bms_session=") })
        #expect(setCookies.contains { $0.hasPrefix(stateCookie.prefix { $0 != "=" } + "=;") && $0.contains("Max-Age=0") })
        let port = setup.port
        let page = try await blocking { try Self.send(port: port, "/echo/app?x=1&y=two", headers: ["Cookie": Self.pair(session)]) }
        #expect(page.status == 200)
        let echoed = try ProxyFixture.echoedHeaders(page)
        #expect(echoed.contains { $0.0 == "x-appnative-user-email" && $0.1 == "dev.user@example.com" })
        let me = try await blocking { try Self.send(port: port, "/.auth/me", headers: ["Cookie": Self.pair(session)]) }
        #expect(me.bodyText.contains("\"auth_method\":\"cookie\""))
        // The callback replayed, with or without the cookie, is refused.
        let replayed = try await Self.callback(setup, callback, cookie: stateCookie)
        #expect(replayed.status == 400)
        #expect(replayed.bodyText.contains("state_replayed"))
        #expect(replayed.head.headers.first("Set-Cookie")?.hasPrefix("bms_session=") != true)
        let withoutCookie = try await Self.callback(setup, callback, cookie: nil)
        #expect(withoutCookie.status == 400)
        #expect(withoutCookie.bodyText.contains("state_missing"))
    }

    @Test("a forged callback (no attempt of ours, another attempt's cookie, a code from elsewhere) is refused")
    func forgedCallback() async throws {
        let setup = try await Self.start()
        defer { setup.stop() }
        // Login CSRF: the attacker's own code and state, sent to a victim who started nothing.
        let (attackerAuthorize, _) = try await Self.startSignIn(setup, "/")
        let attackerCallback = try await Self.choose("sam", at: attackerAuthorize)
        let (_, victimCookie) = try await Self.startSignIn(setup, "/")
        let planted = try await Self.callback(setup, attackerCallback, cookie: victimCookie)
        #expect(planted.status == 400)
        #expect(planted.bodyText.contains("state_missing"))
        let port = setup.port
        let invented = try await blocking {
            try Self.send(port: port, "/.auth/callback?code=abc&state=" + String(repeating: "A", count: 43), headers: Self.navigation)
        }
        #expect(invented.status == 400)
        let polluted = try await blocking { try Self.send(port: port, "/.auth/callback?code=a&code=b&state=s", headers: Self.navigation) }
        #expect(polluted.status == 400)
        #expect(polluted.bodyText.contains("callback_malformed"))
        #expect(polluted.head.headers.first("Content-Type") == "text/html; charset=utf-8")
        #expect(polluted.bodyText.contains("Sign in again"))
    }

    @Test("a user of another tenant is refused with 403; a cancelled sign-in gets its page")
    func otherTenantAndCancel() async throws {
        let setup = try await Self.start()
        defer { setup.stop() }
        let (authorize, cookie) = try await Self.startSignIn(setup, "/app")
        let refused = try await Self.callback(setup, try await Self.choose("eve", at: authorize), cookie: cookie)
        #expect(refused.status == 403)
        #expect(refused.bodyText.contains("wrong_tenant"))
        #expect(!refused.bodyText.contains("eve@other-tenant"))
        #expect(refused.head.headers.values("Set-Cookie").allSatisfy { !$0.hasPrefix("bms_session=") })
        let (again, secondCookie) = try await Self.startSignIn(setup, "/app")
        let cancelled = try await Self.callback(setup, try await Self.choose("cancel", at: again), cookie: secondCookie)
        #expect(cancelled.status == 401)
        #expect(cancelled.bodyText.contains("cancelled"))
    }

    @Test("open-redirect attempts through login?redirect= land on this origin")
    func openRedirect() async throws {
        let setup = try await Self.start()
        defer { setup.stop() }
        let port = setup.port
        for redirect in ["//evil.example/x", "/%5Cevil.example", "https://evil.example/", "/\\evil.example", "javascript:alert(1)", "%2F%2Fevil.example"] {
            let encoded = redirect.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let login = try await blocking { try Self.send(port: port, "/.auth/login?redirect=" + encoded, headers: Self.navigation) }
            #expect(login.status == 302)
            let authorize = try #require(login.head.headers.first("Location"))
            let cookie = Self.pair(try #require(login.head.headers.values("Set-Cookie").first))
            let finished = try await Self.callback(setup, try await Self.choose("zoe", at: authorize), cookie: cookie)
            #expect(finished.head.headers.first("Location") == "/", "\(redirect)")
        }
        let kept = try await blocking { try Self.send(port: port, "/.auth/login?redirect=%2Fapp%3Fq%3D1", headers: Self.navigation) }
        let finished = try await Self.callback(
            setup, try await Self.choose("zoe", at: try #require(kept.head.headers.first("Location"))),
            cookie: Self.pair(try #require(kept.head.headers.values("Set-Cookie").first)))
        #expect(finished.head.headers.first("Location") == "/app?q=1")
    }

    @Test("two attempts at once (two tabs) both finish, each on its own page")
    func twoTabs() async throws {
        let setup = try await Self.start()
        defer { setup.stop() }
        let first = try await Self.startSignIn(setup, "/one")
        let second = try await Self.startSignIn(setup, "/two")
        let both = first.stateCookie + "; " + second.stateCookie
        let secondDone = try await Self.callback(setup, try await Self.choose("zoe", at: second.authorize), cookie: both)
        let firstDone = try await Self.callback(setup, try await Self.choose("zoe", at: first.authorize), cookie: both)
        #expect(secondDone.head.headers.first("Location") == "/two")
        #expect(firstDone.head.headers.first("Location") == "/one")
    }

    @Test("logout from a form: SIGN_OUT=entra goes to the end-session endpoint, local to the signed-out page; fetch keeps 204")
    func signOut() async throws {
        for mode in ["local", "entra"] {
            let setup = try await Self.start(["SIGN_OUT": mode])
            defer { setup.stop() }
            let port = setup.port
            let origin = "http://127.0.0.1:\(port)"
            let form = try await blocking {
                try Self.send(port: port, "/.auth/logout", method: "POST", headers: Self.navigation.merging(["Origin": origin, "Sec-Fetch-Site": "same-origin"]) { $1 })
            }
            #expect(form.status == 303)
            #expect(form.head.headers.values("Set-Cookie").contains { $0.hasPrefix("bms_session=;") || $0.contains("Max-Age=0") })
            let location = try #require(form.head.headers.first("Location"))
            if mode == "entra" {
                #expect(location.hasPrefix(setup.provider.issuer + "/oauth2/v2.0/logout?"))
                let query = FormURLEncoding.parseQuery(ofTarget: location)
                #expect(query.contains { $0.name == "post_logout_redirect_uri" && $0.value == origin + "/.auth/signed-out" })
            } else {
                #expect(location == "/.auth/signed-out")
            }
            let page = try await blocking { try Self.send(port: port, "/.auth/signed-out", headers: Self.navigation) }
            #expect(page.status == 200)
            #expect(page.bodyText.contains("signed out"))
            let fetch = try await blocking {
                try Self.send(port: port, "/.auth/logout", method: "POST", headers: ["Origin": origin, "Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty"])
            }
            #expect(fetch.status == 204)
        }
    }

    @Test("config check: a credential is required when sign-in is on; discovery over plain http only on loopback")
    func configurationIsChecked() async throws {
        let base = [
            "UPSTREAM_URL": "http://127.0.0.1:1", "ENTRA_TENANT_ID": DevIdentityProvider.tenantID, "ENTRA_AUDIENCE": "x",
            "SESSION_SECRET": ProxyFixture.sessionSecret, "BROWSER_SIGN_IN": "true", "ENTRA_CLIENT_ID": "web",
        ]
        let missing = try await ProcessRunner.run(GatewayExecutable.path, ["config", "check"], environment: base)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("ENTRA_CLIENT_SECRET"))
        let cleartext = try await ProcessRunner.run(
            GatewayExecutable.path, ["config", "check"],
            environment: base.merging(["ENTRA_CLIENT_SECRET": "s", "OIDC_DISCOVERY_URL": "http://login.example/.well-known/openid-configuration"]) { $1 })
        #expect(cleartext.status == 2)
        #expect(cleartext.stderr.contains("OIDC_DISCOVERY_URL"))
        let good = try await ProcessRunner.run(
            GatewayExecutable.path, ["config", "check"],
            environment: base.merging(["ENTRA_CLIENT_SECRET": "s", "OIDC_DISCOVERY_URL": "http://127.0.0.1:9/.well-known/openid-configuration"]) { $1 })
        #expect(good.status == 0, "\(good.stderr)")
        var noSession = base
        noSession["SESSION_SECRET"] = nil
        noSession["ENTRA_CLIENT_SECRET"] = "s"
        let withoutSessions = try await ProcessRunner.run(GatewayExecutable.path, ["config", "check"], environment: noSession)
        #expect(withoutSessions.status == 2)
        #expect(withoutSessions.stderr.contains("SESSION_SECRET"))
    }
}
