import AppNativeAuth
import AppNativeCore
import AppNativeCrypto
import AppNativeDevPeers
import AppNativeGateway
import AppNativeServer
import Foundation
import Glibc

// Unsafe: write(2) is given a string's UTF-8 buffer and its count, borrowed for the call.

/// `dev` (what `make run` starts): the gateway on its embedded dev default — the dev identity
/// provider's keys, the dev session secret and assertion key from keys/dev, and a built-in demo
/// upstream — plus a dev token and a walk-through. DEV KEYS ONLY; Ctrl-C stops everything.
enum DevCommand {
    static func run(environment: [String: String]) async throws -> ExitCode {
        guard let root = DevKeyLocator.repositoryRoot(environment: environment) else {
            throw ArgumentList.UsageError(description: "keys/dev not found; run from the repository or set APPNATIVE_REPOSITORY_ROOT")
        }
        let provider = try DevIdentityProvider.load(repositoryRoot: root)
        let upstream = try HTTPServer(
            configuration: ServerConfiguration(listenAddress: try SocketAddress(parsing: "127.0.0.1:0"), eventLoops: 1),
            metrics: MetricsRegistry()
        ) { _ in DemoUpstreamHandler(authPathPrefix: environment["AUTH_PATH_PREFIX"] ?? "/.auth/") }
        upstream.start()
        // The dev identity provider's browser sign-in: discovery, a sign-in page of dev users,
        // the token and end-session endpoints, on a loopback port of its own.
        let signInProvider = try DevSignInServer(provider: provider, listenAddress: try SocketAddress(parsing: "127.0.0.1:0"))
        signInProvider.start()

        var env = environment
        let defaults = [
            "LISTEN": "127.0.0.1:8080", "ADMIN_LISTEN": "127.0.0.1:9090", "EVENT_LOOPS": "2",
            "UPSTREAM_URL": "http://\(upstream.boundAddress)",
            "ENTRA_TENANT_ID": DevIdentityProvider.tenantID, "ENTRA_AUDIENCE": DevIdentityProvider.audience,
            "SESSION_SECRET": try String(contentsOfFile: root + "/keys/dev/session-secret.txt", encoding: .utf8),
            "SESSION_SECURE": "false",
            "APPLE_APP_IDS": "ABCDE12345.com.example.appnative.dev",
            "ASSERTION_KEYS": try String(contentsOfFile: root + "/keys/dev/assertion-dev-p256.pem", encoding: .utf8),
            "BROWSER_SIGN_IN": "true", "ENTRA_CLIENT_ID": DevIdentityProvider.signInClientID,
            "ENTRA_CLIENT_SECRET": DevIdentityProvider.signInClientSecret, "OIDC_DISCOVERY_URL": signInProvider.discoveryURL,
        ]
        for (key, value) in defaults where env[key] == nil { env[key] = value }
        // Pushes go to the fake APNs peer unless the environment names a real APNs setup.
        var sink: DevAPNsSink?
        var sinkNote = ""
        if env["APNS_KEY"] == nil {
            switch DevAPNsSink.start(repositoryRoot: root) {
            case .success(let started):
                sink = started
                let key = try String(contentsOfFile: root + "/keys/dev/apns-dev.p8", encoding: .utf8)
                for (name, value) in started.environment(apnsKey: key) where env[name] == nil { env[name] = value }
            case .failure(let unavailable):
                sinkNote = "push API off: \(unavailable.reason)"
            }
        }
        defer { sink?.stop() }
        var configuration: GatewayConfiguration
        do {
            configuration = try GatewayConfiguration.fromEnvironment(env)
        } catch {
            for problem in error.problems { CommandOutput.printError("configuration: \(problem.variable): \(problem.message)") }
            return .usage
        }
        configuration.identity.jwksFetcher = InMemoryJWKSFetcher(document: provider.jwksDocument)
        let gateway = try Gateway(configuration: configuration, logger: Logger())
        let base = "http://\(gateway.listenAddress)"
        let callback = configuration.identity.authPathPrefix + "callback"
        let port = gateway.listenAddress.port
        // The address it listens on, and the loopback names a browser on this machine uses.
        let origins = [base, "http://127.0.0.1:\(port)", "http://localhost:\(port)"] + (env["PUBLIC_URL"].map { [$0] } ?? [])
        for origin in origins {
            signInProvider.register(redirectURI: origin + callback)
        }
        await gateway.start()
        let token = try provider.token(issuedAt: SystemTimeSource().wallSeconds)
        var banner = """
            app-native-gateway \(GatewayVersion.current) — dev setup (DEV KEYS ONLY, never in production)

            gateway      \(base)          (admin: http://\(gateway.adminAddress)/metrics)
            upstream     http://\(upstream.boundAddress)   (built-in demo: shows the identity it receives)
            apns         \(sink.map { "fake APNs on 127.0.0.1:\($0.port), every push recorded in \($0.recordPath)" } ?? sinkNote)
            tenant       \(DevIdentityProvider.tenantID)   audience \(DevIdentityProvider.audience)
            sign-in      \(signInProvider.issuer)   (dev identity provider: sign-in page, token and end-session endpoints)

            In a browser: open \(base)/ — it signs in through the dev identity provider (pick a dev
            user; the one of another tenant is refused) and shows the demo upstream's page of who you are.

            A dev token (1 h, signed with keys/dev/entra-dev-rsa.pem):
              export TOKEN=\(token)

            Try (every line is run by the integration tests, as printed):
              curl -i \(base)/hello                                   # 401: no credential
              curl -s \(base)/hello -H "Authorization: Bearer $TOKEN" # the upstream sees the verified identity
              curl -si -X POST \(base)/.auth/session -H "Authorization: Bearer $TOKEN" -c cookies.txt   # token → cookie
              curl -s \(base)/.auth/me -b cookies.txt                 # signed in by the cookie alone
              curl -s \(base)/.auth/jwks.json                         # keys that verify X-AppNative-Identity
              curl -s \(base)/api/widgets -H "Authorization: Bearer $TOKEN"   # widget feed, validated by the gateway
              curl -s \(base)/api/devices -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" -d '{"device_id":"demo-device","push_token":"00ff"}'
              curl -s \(base)/api/documents -H "Authorization: Bearer $TOKEN" -F device_id=demo-device -F file=@README.md   # streamed upload
              curl -s http://\(gateway.adminAddress)/push/alert -H "Authorization: Bearer \(DevAPNsSink.pushAPIKey)" -H "Content-Type: application/json" -d '{"tokens":["00ff00ff"],"title":"Hello","body":"From the push API"}'
              echo "$TOKEN" | .build/debug/app-native-gateway token verify --dev

            Ctrl-C stops everything.

            """
        banner.withUTF8 { _ = unsafe Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        var line = "app-native-gateway ready listen=\(gateway.listenAddress) admin=\(gateway.adminAddress) upstream=\(upstream.boundAddress)\n"
        line.withUTF8 { _ = unsafe Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        _ = ProcessSignals.wait()
        gateway.shutdown()
        signInProvider.shutdown()
        upstream.shutdown(gracePeriod: .milliseconds(200))
        return .success
    }
}
