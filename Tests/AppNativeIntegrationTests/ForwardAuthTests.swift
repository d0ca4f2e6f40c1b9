import AppNativeDevPeers
import AppNativeHTTP
import AppNativeTesting
import Foundation
import Testing

/// Forward-auth mode: real nginx `auth_request` and real Caddy `forward_auth` in front, asking the
/// gateway's `/.auth/verify`, with the identity headers copied onto the upstream request.
@Suite("Forward-auth behind nginx and Caddy", .serialized)
struct ForwardAuthTests {
    struct Front {
        let child: ChildProcess
        let port: Int
        let directory: URL
        func stop() {
            child.kill()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    static func startNginx(gatewayPort: Int, upstreamPort: Int) async throws -> Front {
        try await NginxPeer.start(http: """
              server {
                listen 127.0.0.1:{port};
                location = /_verify {
                  internal;
                  proxy_pass http://127.0.0.1:\(gatewayPort)/.auth/verify;
                  proxy_pass_request_body off;
                  proxy_set_header Content-Length "";
                  proxy_set_header X-Original-URI $request_uri;
                  proxy_set_header X-Original-Method $request_method;
                  proxy_set_header Host $http_host;
                }
                location / {
                  auth_request /_verify;
                  auth_request_set $user_id $upstream_http_x_appnative_user_id;
                  auth_request_set $user_email $upstream_http_x_appnative_user_email;
                  auth_request_set $user_roles $upstream_http_x_appnative_user_roles;
                  proxy_set_header X-AppNative-User-Id $user_id;
                  proxy_set_header X-AppNative-User-Email $user_email;
                  proxy_set_header X-AppNative-User-Roles $user_roles;
                  proxy_pass http://127.0.0.1:\(upstreamPort);
                }
              }
            """)
    }

    static func startCaddy(gatewayPort: Int, upstreamPort: Int) async throws -> Front {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("caddy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let log = directory.appendingPathComponent("caddy.log").path
        do {
            // Caddy cannot report a port it chose: started on a free one, again on another if it loses it.
            let (child, ports) = try await LoopbackPorts.start(
                "caddy", ports: 1, explain: { (try? String(contentsOfFile: log, encoding: .utf8)).map { String($0.suffix(2000)) } ?? "" }
            ) { ports in
                let caddyfile = """
                    {
                      admin off
                      auto_https off
                      storage file_system \(directory.path)
                    }
                    http://127.0.0.1:\(ports[0]) {
                      route {
                        # A header the gateway does not send (no roles) would otherwise pass as the client sent it.
                        request_header -X-AppNative-User-Id
                        request_header -X-AppNative-User-Email
                        request_header -X-AppNative-User-Roles
                        forward_auth 127.0.0.1:\(gatewayPort) {
                          uri /.auth/verify
                          copy_headers X-AppNative-User-Id X-AppNative-User-Email X-AppNative-User-Roles
                        }
                        reverse_proxy 127.0.0.1:\(upstreamPort)
                      }
                    }
                    """
                try caddyfile.write(to: directory.appendingPathComponent("Caddyfile"), atomically: true, encoding: .utf8)
                return try ChildProcess(
                    ["/usr/bin/caddy", "run", "--adapter", "caddyfile", "--config", directory.appendingPathComponent("Caddyfile").path],
                    environment: ["HOME": directory.path, "XDG_DATA_HOME": directory.path, "XDG_CONFIG_HOME": directory.path, "PATH": "/usr/bin:/bin"],
                    stderrFile: log
                )
            }
            return Front(child: child, port: ports[0], directory: directory)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    @Test("nginx auth_request and Caddy forward_auth: 401 without credential, identity headers with a token", arguments: ["nginx", "caddy"])
    func forwardAuth(_ front: String) async throws {
        let fixture = try await ProxyFixture.start(["PUBLIC_PATHS": "/public"])
        defer { fixture.stop() }
        let proxy = front == "nginx"
            ? try await Self.startNginx(gatewayPort: fixture.port, upstreamPort: fixture.upstream.port)
            : try await Self.startCaddy(gatewayPort: fixture.port, upstreamPort: fixture.upstream.port)
        defer { proxy.stop() }
        let port = proxy.port
        let anonymous = try await blocking { try RawHTTPClient.get(port: port, "/echo/x") }
        #expect(anonymous.status == 401, "\(front)")
        let token = try ProxyFixture.devProvider().token(issuedAt: Date().timeIntervalSince1970)
        // The dev user has no roles, so the gateway sends no roles header: a forged one must not pass.
        let forged = ["Authorization": "Bearer \(token)", "X-AppNative-User-Roles": "admin", "X-AppNative-User-Id": "mallory"]
        let signedIn = try await blocking { try RawHTTPClient.get(port: port, "/echo/x", headers: forged) }
        #expect(signedIn.status == 200, "\(front)")
        let headers = try ProxyFixture.echoedHeaders(signedIn)
        #expect(headers.first { $0.0 == "x-appnative-user-id" }?.1 == DevIdentityProvider.User().objectID, "\(front)")
        #expect(headers.first { $0.0 == "x-appnative-user-email" }?.1 == "dev.user@example.com", "\(front)")
        #expect(headers.filter { $0.0 == "x-appnative-user-id" }.count == 1, "\(front)")
        #expect(!headers.contains { $0.0 == "x-appnative-user-roles" && !$0.1.isEmpty }, "\(front): a forged roles header passed")
    }

    /// nginx: `verify` answers a navigation's 401 with the sign-in URL in `Location`;
    /// `auth_request_set` keeps it and `error_page 401` redirects there. Everything else keeps
    /// nginx's 401. `/.auth/` goes to the gateway, so the sign-in and its callback are on the front's origin.
    static func startNginxSigningIn(gatewayPort: Int, upstreamPort: Int) async throws -> Front {
        try await NginxPeer.start(http: """
              server {
                listen 127.0.0.1:{port};
                location = /_verify {
                  internal;
                  proxy_pass http://127.0.0.1:\(gatewayPort)/.auth/verify;
                  proxy_pass_request_body off;
                  proxy_set_header Content-Length "";
                  proxy_set_header X-Original-URI $request_uri;
                  proxy_set_header X-Original-Method $request_method;
                  proxy_set_header Host $http_host;
                }
                location /.auth/ {
                  proxy_pass http://127.0.0.1:\(gatewayPort);
                  proxy_set_header Host $http_host;
                }
                location @signin {
                  if ($signin_location = "") { return 401; }
                  return 302 $signin_location;
                }
                location / {
                  auth_request /_verify;
                  auth_request_set $signin_location $upstream_http_location;
                  auth_request_set $user_email $upstream_http_x_appnative_user_email;
                  error_page 401 = @signin;
                  proxy_set_header X-AppNative-User-Email $user_email;
                  proxy_pass http://127.0.0.1:\(upstreamPort);
                }
              }
            """)
    }

    /// Caddy: `forward_auth` passes a non-2xx answer on to the client as it is, so `verify` is
    /// asked (`?sign_in=redirect`) to answer a navigation with the redirect itself.
    static func startCaddySigningIn(gatewayPort: Int, upstreamPort: Int) async throws -> Front {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("caddy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let log = directory.appendingPathComponent("caddy.log").path
        do {
            let (child, ports) = try await LoopbackPorts.start(
                "caddy", ports: 1, explain: { (try? String(contentsOfFile: log, encoding: .utf8)).map { String($0.suffix(2000)) } ?? "" }
            ) { ports in
                let caddyfile = """
                    {
                      admin off
                      auto_https off
                      storage file_system \(directory.path)
                    }
                    http://127.0.0.1:\(ports[0]) {
                      handle /.auth/* {
                        reverse_proxy 127.0.0.1:\(gatewayPort)
                      }
                      @app not path /.auth/*
                      route @app {
                        request_header -X-AppNative-User-Email
                        forward_auth 127.0.0.1:\(gatewayPort) {
                          uri /.auth/verify?sign_in=redirect
                          copy_headers X-AppNative-User-Email
                        }
                        reverse_proxy 127.0.0.1:\(upstreamPort)
                      }
                    }
                    """
                try caddyfile.write(to: directory.appendingPathComponent("Caddyfile"), atomically: true, encoding: .utf8)
                return try ChildProcess(
                    ["/usr/bin/caddy", "run", "--adapter", "caddyfile", "--config", directory.appendingPathComponent("Caddyfile").path],
                    environment: ["HOME": directory.path, "XDG_DATA_HOME": directory.path, "XDG_CONFIG_HOME": directory.path, "PATH": "/usr/bin:/bin"],
                    stderrFile: log
                )
            }
            return Front(child: child, port: ports[0], directory: directory)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    @Test("browser sign-in behind nginx auth_request and Caddy forward_auth: a navigation's 401 becomes the sign-in redirect", arguments: ["nginx", "caddy"])
    func signInBehindFront(_ front: String) async throws {
        let setup = try await BrowserSignInTests.start()
        defer { setup.stop() }
        let proxy = front == "nginx"
            ? try await Self.startNginxSigningIn(gatewayPort: setup.port, upstreamPort: setup.fixture.upstream.port)
            : try await Self.startCaddySigningIn(gatewayPort: setup.port, upstreamPort: setup.fixture.upstream.port)
        defer { proxy.stop() }
        let port = proxy.port
        setup.provider.register(redirectURI: "http://127.0.0.1:\(port)/.auth/callback")
        // fetch/XHR: still a 401, never a redirect.
        let fetch = try await blocking {
            try BrowserSignInTests.send(port: port, "/echo/x", headers: ["Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty", "Accept": "*/*"])
        }
        #expect(fetch.status == 401, "\(front)")
        #expect(fetch.head.headers.first("Location") == nil, "\(front)")
        // A navigation: to the gateway's login on the front's origin, with the original URI.
        let navigation = try await blocking { try BrowserSignInTests.send(port: port, "/echo/x?a=1&b=two", headers: BrowserSignInTests.navigation) }
        #expect(navigation.status == 302, "\(front)")
        let login = try #require(navigation.head.headers.first("Location"), "\(front)")
        let loginTarget = login.hasPrefix("http") ? try BrowserSignInTests.split(login).target : login
        #expect(loginTarget == "/.auth/login?redirect=%2Fecho%2Fx%3Fa%3D1%26b%3Dtwo", "\(front)")
        // Through the front: login → provider → callback → back on the original URI, signed in.
        let started = try await blocking { try BrowserSignInTests.send(port: port, loginTarget, headers: BrowserSignInTests.navigation) }
        #expect(started.status == 302, "\(front)")
        let authorize = try #require(started.head.headers.first("Location"))
        #expect(authorize.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A\(port)%2F.auth%2Fcallback"), "\(front)")
        let stateCookie = BrowserSignInTests.pair(try #require(started.head.headers.values("Set-Cookie").first))
        let callback = try await BrowserSignInTests.choose("zoe", at: authorize)
        let (_, callbackTarget) = try BrowserSignInTests.split(callback)
        let finished = try await blocking {
            try BrowserSignInTests.send(port: port, callbackTarget, headers: BrowserSignInTests.navigation.merging(["Cookie": stateCookie]) { $1 })
        }
        #expect(finished.status == 302, "\(front): \(finished.bodyText)")
        #expect(finished.head.headers.first("Location") == "/echo/x?a=1&b=two", "\(front)")
        let session = BrowserSignInTests.pair(try #require(finished.head.headers.values("Set-Cookie").first { $0.hasPrefix("bms_session=") }))
        let page = try await blocking { try BrowserSignInTests.send(port: port, "/echo/x?a=1&b=two", headers: ["Cookie": session]) }
        #expect(page.status == 200, "\(front)")
        #expect(try ProxyFixture.echoedHeaders(page).contains { $0.0 == "x-appnative-user-email" && $0.1 == "dev.user@example.com" }, "\(front)")
    }
}
