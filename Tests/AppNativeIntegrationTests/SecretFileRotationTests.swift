import AppNativeAuth
import AppNativeDevPeers
import AppNativeHTTP
import AppNativeJSON
import AppNativeTesting
import Foundation
import Glibc
import Synchronization
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

/// Secrets read from files through the gateway binary: they work, both forms together are
/// refused, and `SIGHUP` rotates them (session secret, assertion keys, push API keys) without
/// dropping a connection; an unusable file keeps the value in force, logged and counted.
@Suite("Secrets from files, rotated on SIGHUP", .serialized)
struct SecretFileRotationTests {
    static let secretA = "rotation-secret-A-0123456789abcdefghijkl"
    static let secretB = "rotation-secret-B-0123456789abcdefghijkl"
    static let secretC = "rotation-secret-C-0123456789abcdefghijkl"
    static let root = ProcessRunner.repositoryRoot()
    /// Two P-256 keys of the repository (dev and test only).
    static let assertionKey1 = root + "/keys/dev/assertion-dev-p256.pem"
    static let assertionKey2 = root + "/keys/test/apns-test.p8"

    /// A directory of files for one test.
    final class Files: Sendable {
        let directory: URL

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("rotation-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }

        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

        /// Writes `content` and a trailing newline, replacing the file by rename (as an editor or
        /// a secret manager does).
        func write(_ name: String, _ content: String) throws {
            try (content + "\n").write(toFile: path(name), atomically: true, encoding: .utf8)
        }

        func copy(_ source: String, to name: String) throws {
            try write(name, String(contentsOfFile: source, encoding: .utf8))
        }

        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    /// Set once by one task, read by others.
    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        var isSet: Bool { value.load(ordering: .acquiring) }
        func set() { value.store(true, ordering: .releasing) }
    }

    static func token() throws -> String {
        try ProxyFixture.devProvider().token(issuedAt: Date().timeIntervalSince1970)
    }

    /// The `name=value` of the session cookie a token request gets back.
    static func cookie(_ port: Int, _ token: String) async throws -> String {
        let response = try await blocking { try RawHTTPClient.get(port: port, "/echo", headers: ["Authorization": "Bearer \(token)"]) }
        #expect(response.status == 200)
        let field = try #require(response.head.headers.first("Set-Cookie"))
        return String(field.split(separator: ";")[0])
    }

    static func status(_ port: Int, cookie: String) async throws -> Int {
        try await blocking { try RawHTTPClient.get(port: port, "/echo", headers: ["Cookie": cookie]).status }
    }

    /// Whether `cookie` verifies with `secret` alone (the fixture's deployment and tenant).
    /// `deployment` adds to the settings that name the deployment (`ENTRA_CLIENT_ID` with the sign-in).
    static func isSigned(_ cookie: String, with secret: String, deployment: [String: String] = [:]) throws -> Bool {
        let environment = ["SESSION_SECRET": secret, "ENTRA_AUDIENCE": DevIdentityProvider.audience].merging(deployment) { $1 }
        let settings = try #require(try SessionCookieSettings.fromEnvironment(environment))
        let codec = SessionCookieCodec(settings: settings, tenantID: DevIdentityProvider.tenantID)
        if case .success? = codec.verdict(fromCookieHeaders: [cookie]) { return true }
        return false
    }

    /// `config.reloads{file,outcome}` (with or without the `_total` suffix of a counter).
    static func reloads(_ adminPort: Int, _ file: String, _ outcome: String) async throws -> Int {
        let metrics = try await blocking { try RawHTTPClient.get(port: adminPort, "/metrics").bodyText }
        let labels = "{file=\"\(file)\",outcome=\"\(outcome)\"} "
        for line in metrics.split(separator: "\n") {
            guard let range = line.range(of: labels) else { continue }
            let name = line[..<range.lowerBound]
            guard name == "appnative_config_reloads" || name == "appnative_config_reloads_total" else { continue }
            return Int(line[range.upperBound...]) ?? 0
        }
        return 0
    }

    /// Sends SIGHUP and waits until `file` counted one more `outcome`.
    static func reload(_ fixture: ProxyFixture, _ file: String, _ outcome: String = "ok") async throws -> Bool {
        let adminPort = fixture.gateway.adminPort
        let before = try await reloads(adminPort, file, outcome)
        fixture.gateway.send(signal: SIGHUP)
        return await eventually { (try? await reloads(adminPort, file, outcome)) ?? 0 > before }
    }

    static func keySet(_ port: Int) async throws -> [String] {
        let body = try await blocking { try RawHTTPClient.get(port: port, "/.auth/jwks.json").body }
        let keys = try JSONParser().parse(body).objectValue?["keys"]?.arrayValue ?? []
        return keys.compactMap { $0.objectValue?["kid"]?.stringValue }
    }

    static func start(_ files: Files, _ extra: [String: String] = [:]) async throws -> ProxyFixture {
        try await ProxyFixture.start(
            ["PUBLIC_PATHS": "/public", "SESSION_SECRET": "", "SESSION_SECRET_FILE": files.path("session")].merging(extra) { $1 })
    }

    @Test("the gateway reads its secrets from files; SIGHUP rotates the session secret, the old one moved to SESSION_SECRET_PREVIOUS_FILE")
    func sessionSecretRotation() async throws {
        let files = try Files()
        try files.write("session", Self.secretA)
        try files.write("previous", Self.secretC)
        let fixture = try await Self.start(files, ["SESSION_SECRET_PREVIOUS_FILE": files.path("previous")])
        defer { fixture.stop() }
        let port = fixture.port
        let token = try Self.token()
        let first = try await Self.cookie(port, token)
        #expect(try Self.isSigned(first, with: Self.secretA), "the cookie is not signed with the file's secret")

        try files.write("session", Self.secretB)
        try files.write("previous", Self.secretA)
        #expect(try await Self.reload(fixture, "SESSION_SECRET_FILE"), "the reload was not counted")
        #expect(try await Self.reloads(fixture.gateway.adminPort, "SESSION_SECRET_PREVIOUS_FILE", "ok") == 1)
        let second = try await Self.cookie(port, token)
        #expect(try Self.isSigned(second, with: Self.secretB), "a new cookie is not signed with the new secret")
        #expect(try !Self.isSigned(second, with: Self.secretA))
        #expect(try await Self.status(port, cookie: first) == 200, "a cookie of the previous secret was refused")
        #expect(try await Self.status(port, cookie: second) == 200)
        #expect(fixture.gateway.logs.contains("session secret reloaded"))
        #expect(!fixture.gateway.logs.contains(Self.secretA) && !fixture.gateway.logs.contains(Self.secretB))

        // The previous secret dropped: its cookies are refused from now on.
        try files.write("previous", Self.secretC)
        #expect(try await Self.reload(fixture, "SESSION_SECRET_PREVIOUS_FILE"))
        #expect(try await Self.status(port, cookie: first) == 401)
        #expect(try await Self.status(port, cookie: second) == 200)
    }

    @Test("an unusable file keeps the secret in force: logged by setting and path, counted, never its content")
    func badFileKeepsValue() async throws {
        let files = try Files()
        try files.write("session", Self.secretA)
        let fixture = try await Self.start(files)
        defer { fixture.stop() }
        let port = fixture.port
        let token = try Self.token()

        for bad in ["", "short-secret-never-logged"] {
            try files.write("session", bad)
            #expect(try await Self.reload(fixture, "SESSION_SECRET_FILE", "failed"), "the failed reload was not counted")
            #expect(try Self.isSigned(try await Self.cookie(port, token), with: Self.secretA), "an unusable file replaced the secret")
        }
        try FileManager.default.removeItem(atPath: files.path("session"))
        #expect(try await Self.reload(fixture, "SESSION_SECRET_FILE", "failed"))
        #expect(try await Self.reloads(fixture.gateway.adminPort, "SESSION_SECRET_FILE", "failed") == 3)
        #expect(try await Self.reloads(fixture.gateway.adminPort, "SESSION_SECRET_FILE", "ok") == 0)
        let logs = fixture.gateway.logs
        #expect(logs.contains("session secret reload failed"))
        #expect(logs.contains("SESSION_SECRET_FILE") && logs.contains(files.path("session")))
        #expect(!logs.contains("short-secret-never-logged") && !logs.contains(Self.secretA))

        try files.write("session", Self.secretB)
        #expect(try await Self.reload(fixture, "SESSION_SECRET_FILE"))
        #expect(try Self.isSigned(try await Self.cookie(port, token), with: Self.secretB))
    }

    @Test("a Kubernetes secret volume: the ..data symlink swapped to a new directory is read at SIGHUP")
    func kubernetesSymlinkSwap() async throws {
        let files = try Files()
        let manager = FileManager.default
        func version(_ name: String, _ secret: String) throws {
            try manager.createDirectory(atPath: files.path(name), withIntermediateDirectories: true)
            try files.write(name + "/session", secret)
        }
        try version("..2026_01_01", Self.secretA)
        try manager.createSymbolicLink(atPath: files.path("..data"), withDestinationPath: "..2026_01_01")
        try manager.createSymbolicLink(atPath: files.path("session"), withDestinationPath: "..data/session")
        let fixture = try await Self.start(files)
        defer { fixture.stop() }
        let token = try Self.token()
        #expect(try Self.isSigned(try await Self.cookie(fixture.port, token), with: Self.secretA))

        try version("..2026_01_02", Self.secretB)
        try manager.createSymbolicLink(atPath: files.path("..data_tmp"), withDestinationPath: "..2026_01_02")
        let observed1 = unsafe rename(files.path("..data_tmp"), files.path("..data")) == 0
        #expect(observed1)
        try manager.removeItem(atPath: files.path("..2026_01_01"))
        #expect(try await Self.reload(fixture, "SESSION_SECRET_FILE"))
        #expect(try Self.isSigned(try await Self.cookie(fixture.port, token), with: Self.secretB))
    }

    @Test("SIGHUP rotates ASSERTION_KEYS_FILE: the key set at /.auth/jwks.json and the assertion's key change")
    func assertionKeyRotation() async throws {
        let files = try Files()
        try files.write("session", Self.secretA)
        try files.copy(Self.assertionKey1, to: "assertion")
        let fixture = try await Self.start(files, ["ASSERTION_KEYS_FILE": files.path("assertion")])
        defer { fixture.stop() }
        let port = fixture.port
        let before = try await Self.keySet(port)
        #expect(before.count == 1)

        // The new key signs, the old one stays published while backends may hold its assertions.
        try files.write("assertion", try String(contentsOfFile: Self.assertionKey2, encoding: .utf8) + String(contentsOfFile: Self.assertionKey1, encoding: .utf8))
        #expect(try await Self.reload(fixture, "ASSERTION_KEYS_FILE"))
        let after = try await Self.keySet(port)
        #expect(after.count == 2 && after.last == before.first && after.first != before.first, "\(before) → \(after)")
        let token = try Self.token()
        let echoed = try await blocking { try RawHTTPClient.get(port: port, "/echo", headers: ["Authorization": "Bearer \(token)"]) }
        let assertion = try #require(try ProxyFixture.echoedHeaders(echoed).first { $0.0 == "x-appnative-identity" }?.1)
        let header = try #require(Base64URL.decode(String(assertion.split(separator: ".")[0])))
        #expect(try JSONParser().parse(header).objectValue?["kid"]?.stringValue == after.first, "the assertion is not signed with the new key")

        try files.write("assertion", "not a key")
        #expect(try await Self.reload(fixture, "ASSERTION_KEYS_FILE", "failed"))
        #expect(try await Self.keySet(port) == after)
    }

    @Test("both forms of a setting: config check and serve refuse them, naming both; an unreadable file is named with its path")
    func bothFormsRefused() async throws {
        let files = try Files()
        try files.write("session", Self.secretA)
        let environment = ProxyFixture.publicEnvironment([
            "PATH": "/usr/bin:/bin", "UPSTREAM_URL": "http://127.0.0.1:9", "SESSION_SECRET": Self.secretB,
            "SESSION_SECRET_FILE": files.path("session"),
        ])
        let check = try await ProcessRunner.run(GatewayExecutable.path, ["config", "check"], input: "", environment: environment)
        #expect(check.status == 2)
        #expect(check.stderr.contains("SESSION_SECRET_FILE: set either SESSION_SECRET or SESSION_SECRET_FILE, not both"), "\(check.stderr)")
        do {
            let gateway = try await GatewayProcess.start(environment: environment)
            gateway.stop()
            Issue.record("serve started with both SESSION_SECRET and SESSION_SECRET_FILE")
        } catch let failure as GatewayProcess.StartFailure {
            #expect(failure.description.contains("set either SESSION_SECRET or SESSION_SECRET_FILE, not both"))
        }

        var missing = environment
        missing["SESSION_SECRET"] = nil
        missing["ASSERTION_KEYS_FILE"] = files.path("missing.pem")
        let unreadable = try await ProcessRunner.run(GatewayExecutable.path, ["config", "check"], input: "", environment: missing)
        #expect(unreadable.status == 2)
        #expect(unreadable.stderr.contains("ASSERTION_KEYS_FILE: \(files.path("missing.pem")): cannot be read"), "\(unreadable.stderr)")

        missing["ASSERTION_KEYS_FILE"] = nil
        let fine = try await ProcessRunner.run(GatewayExecutable.path, ["config", "check"], input: "", environment: missing)
        #expect(fine.status == 0, "\(fine.stderr)")
        #expect(!fine.stdout.contains(Self.secretA) && !fine.stderr.contains(Self.secretA))
    }

    @Test("SIGHUP under load: session secret and assertion keys rotate while clients keep their connections; no request fails")
    func rotationUnderLoad() async throws {
        let files = try Files()
        try files.write("session", Self.secretB)
        try files.write("previous", Self.secretA)
        try files.copy(Self.assertionKey1, to: "assertion")
        let fixture = try await Self.start(
            files, ["SESSION_SECRET_PREVIOUS_FILE": files.path("previous"), "ASSERTION_KEYS_FILE": files.path("assertion")])
        defer { fixture.stop() }
        let port = fixture.port
        let token = try Self.token()
        // Signed with the secret every rotation keeps as the previous one: valid throughout.
        let kept = try await Self.cookie(port, token)
        try files.write("session", Self.secretA)
        try files.write("previous", Self.secretB)
        #expect(try await Self.reload(fixture, "SESSION_SECRET_FILE"))

        let rounds = 8
        let rotated = Flag()
        let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
            for client in 0..<4 {
                group.addTask {
                    try await blocking {
                        // One connection per client for the whole run: a dropped one fails the test.
                        let connection = try RawHTTPClient(port: port)
                        let credential = client.isMultiple(of: 2) ? "Authorization: Bearer \(token)" : "Cookie: \(kept)"
                        let request = "GET /echo HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(credential)\r\n\r\n"
                        var statuses = [Int]()
                        // Until every rotation is done, and at least a few requests after it.
                        var after = 0
                        while after < 20 {
                            if rotated.isSet { after += 1 }
                            try connection.send(request)
                            statuses.append(try connection.readResponse().status)
                        }
                        return statuses
                    }
                }
            }
            group.addTask {
                defer { rotated.set() }
                for round in 0..<rounds {
                    let secret = "rotation-under-load-\(round)-0123456789abcdefghij"
                    try files.write("session", secret)
                    try files.write("previous", Self.secretA + "," + Self.secretB)
                    try files.copy(round.isMultiple(of: 2) ? Self.assertionKey2 : Self.assertionKey1, to: "assertion")
                    #expect(try await Self.reload(fixture, "SESSION_SECRET_FILE"), "round \(round)")
                }
                return []
            }
            var all = [Int]()
            for try await part in group { all += part }
            return all
        }
        #expect(statuses.count >= 80)
        #expect(statuses.allSatisfy { $0 == 200 }, "\(Dictionary(grouping: statuses) { $0 }.mapValues(\.count))")
        let adminPort = fixture.gateway.adminPort
        #expect(try await Self.reloads(adminPort, "SESSION_SECRET_FILE", "ok") == rounds + 1)
        #expect(await eventually { (try? await Self.reloads(adminPort, "ASSERTION_KEYS_FILE", "ok")) == rounds + 1 })
        #expect(try await Self.reloads(adminPort, "SESSION_SECRET_FILE", "failed") == 0)
        #expect(try Self.isSigned(try await Self.cookie(port, token), with: "rotation-under-load-\(rounds - 1)-0123456789abcdefghij"))
    }

    @Test("PUSH_API_KEYS_FILE and APNS_KEY_FILE: read at start, rotated on SIGHUP (old key refused, new key sends; the APNs key in force signs)")
    func pushKeyRotation() async throws {
        let files = try Files()
        let (one, two) = (PushAPITests.keys[0], PushAPITests.keys[1])
        try files.write("push-keys", one)
        try files.copy(Self.root + "/keys/test/apns-test.p8", to: "apns.p8")
        let fixture = try await PushAPITests.start([
            "PUSH_API_KEYS": "", "PUSH_API_KEYS_FILE": files.path("push-keys"), "APNS_KEY": "", "APNS_KEY_FILE": files.path("apns.p8"),
        ])
        defer { fixture.stop() }
        let body = #"{"tokens":["\#(PushAPITests.ok)"]}"#
        let adminPort = fixture.gateway.adminPort
        func reload(_ file: String, _ outcome: String = "ok") async throws -> Bool {
            let before = try await Self.reloads(adminPort, file, outcome)
            fixture.gateway.send(signal: SIGHUP)
            return await eventually { (try? await Self.reloads(adminPort, file, outcome)) ?? 0 > before }
        }
        #expect(try await fixture.post("/push/silent", key: one, json: body).1["sent"] == 1)
        #expect(try await fixture.post("/push/silent", key: two, json: body).0 == 401)

        try files.write("push-keys", two)
        #expect(try await reload("PUSH_API_KEYS_FILE"))
        #expect(try await fixture.post("/push/silent", key: one, json: body).0 == 401, "the old key still works")
        #expect(try await fixture.post("/push/silent", key: two, json: body).1["sent"] == 1)

        // Another key in APNS_KEY_FILE signs the provider tokens from now on (Apple's fake refuses it).
        try files.copy(Self.assertionKey1, to: "apns.p8")
        #expect(try await reload("APNS_KEY_FILE"))
        let refused = try await fixture.post("/push/silent", key: two, json: body).1
        #expect(refused["sent"] == 0)
        #expect(refused["results"]?.arrayValue?.first?["reason"] == "InvalidProviderToken")
        try files.copy(Self.root + "/keys/test/apns-test.p8", to: "apns.p8")
        #expect(try await reload("APNS_KEY_FILE"))
        #expect(try await fixture.post("/push/silent", key: two, json: body).1["sent"] == 1)

        try files.write("push-keys", "short")
        #expect(try await reload("PUSH_API_KEYS_FILE", "failed"))
        #expect(try await fixture.post("/push/silent", key: two, json: body).1["sent"] == 1, "a refused file replaced the keys")
        #expect(!fixture.gateway.logs.contains(two) && !fixture.gateway.logs.contains(one))
    }

    @Test("ENTRA_CLIENT_SECRET_FILE rotated on SIGHUP: the next code redemption uses it; a sign-in under way survives a session secret rotation")
    func entraClientSecretRotation() async throws {
        let files = try Files()
        try files.write("client-secret", "a-client-secret-the-provider-does-not-know")
        try files.write("session", Self.secretA)
        try files.write("previous", Self.secretC)
        let setup = try await BrowserSignInTests.start([
            "ENTRA_CLIENT_SECRET": "", "ENTRA_CLIENT_SECRET_FILE": files.path("client-secret"),
            "SESSION_SECRET": "", "SESSION_SECRET_FILE": files.path("session"), "SESSION_SECRET_PREVIOUS_FILE": files.path("previous"),
        ])
        defer { setup.stop() }
        let fixture = setup.fixture
        func signIn(rotatingSessionSecretFirst rotates: Bool = false) async throws -> RawHTTPClient.Response {
            let (authorize, stateCookie) = try await BrowserSignInTests.startSignIn(setup, "/echo/app")
            let callback = try await BrowserSignInTests.choose("zoe", at: authorize)
            if rotates {
                try files.write("session", Self.secretB)
                try files.write("previous", Self.secretA)
                #expect(try await Self.reload(fixture, "SESSION_SECRET_FILE"))
            }
            return try await BrowserSignInTests.callback(setup, callback, cookie: stateCookie)
        }
        let refused = try await signIn()
        #expect(refused.status != 302, "the provider accepted a secret it does not know")
        #expect(!refused.head.headers.values("Set-Cookie").contains { $0.hasPrefix("bms_session=") })

        try files.write("client-secret", DevIdentityProvider.signInClientSecret)
        #expect(try await Self.reload(fixture, "ENTRA_CLIENT_SECRET_FILE"))
        let signedIn = try await signIn(rotatingSessionSecretFirst: true)
        #expect(signedIn.status == 302, "\(signedIn.bodyText)")
        let session = try #require(signedIn.head.headers.values("Set-Cookie").first { $0.hasPrefix("bms_session=") })
        let deployment = ["ENTRA_CLIENT_ID": DevIdentityProvider.signInClientID]
        #expect(try Self.isSigned(BrowserSignInTests.pair(session), with: Self.secretB, deployment: deployment))
        #expect(try !Self.isSigned(BrowserSignInTests.pair(session), with: Self.secretA, deployment: deployment))
        #expect(!fixture.gateway.logs.contains(DevIdentityProvider.signInClientSecret))
    }
}
