import AppNativeJSON
import AppNativeTesting
import Foundation
import Testing

/// The operator CLI through the built executable: verdicts, exit codes, and no secret echoed.
@Suite("Operator CLI")
struct CommandLineTests {
    static let root = ProcessRunner.repositoryRoot()

    static func run(_ arguments: [String], input: String = "", environment: [String: String] = [:]) async throws -> ProcessRunner.Output {
        var env = ["PATH": "/usr/bin:/bin", "APPNATIVE_REPOSITORY_ROOT": root]
        env.merge(environment) { $1 }
        return try await ProcessRunner.run(GatewayExecutable.path, arguments, input: input, environment: env)
    }

    static func json(_ text: String) throws -> JSONObject {
        try #require(try JSONParser().parse(text.trimmingCharacters(in: .whitespacesAndNewlines)).objectValue)
    }

    @Test("version")
    func version() async throws {
        let output = try await Self.run(["version"])
        #expect(output.status == 0)
        #expect(output.stdout.hasPrefix("app-native-gateway "))
    }

    @Test("a dev token verifies; the verdict never contains the token")
    func mintAndVerify() async throws {
        let minted = try await Self.run(["token", "mint", "--dev", "--email", "zoe@example.com", "--role", "Approver"])
        #expect(minted.status == 0, "\(minted.stderr)")
        let token = minted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.split(separator: ".").count == 3)
        let verified = try await Self.run(["token", "verify", "--dev"], input: token + "\n")
        #expect(verified.status == 0, "\(verified.stderr)")
        let verdict = try Self.json(verified.stdout)
        #expect(verdict["valid"] == .bool(true))
        #expect(verdict["user"]?["email"] == .string("zoe@example.com"))
        #expect(verdict["user"]?["name"] == .string("Zoë Müller-Łukasz"))
        #expect(!verified.stdout.contains(String(token.prefix(20))))
        #expect(!verified.stdout.contains(String(token.suffix(20))))
    }

    @Test("an invalid token exits 1 with its reason; bad usage exits 2")
    func invalid() async throws {
        let tampered = try await Self.run(["token", "verify", "--dev"], input: "eyJhbGciOiJub25lIn0.e30.")
        #expect(tampered.status == 1)
        #expect(try Self.json(tampered.stdout)["reason"] == .string("algorithm"))
        let usage = try await Self.run(["token", "frobnicate"])
        #expect(usage.status == 2)
        let unknown = try await Self.run(["frobnicate"])
        #expect(unknown.status == 2)
        let notConfigured = try await Self.run(["token", "verify"], input: "x")
        #expect(notConfigured.status == 2)
        #expect(notConfigured.stderr.contains("not configured"))
    }

    @Test("verify with ENTRA_* and a JWKS file; keys unavailable exits 3")
    func jwksFile() async throws {
        let jwks = try await Self.run(["token", "jwks", "--dev"])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json")
        try jwks.stdout.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let token = try await Self.run(["token", "mint", "--dev"]).stdout
        let environment = ["ENTRA_TENANT_ID": "d0d0d0d0-0000-4000-8000-00000000de01", "ENTRA_AUDIENCE": "appnative-dev-ios-app"]
        let ok = try await Self.run(["token", "verify", "--jwks-file", file.path], input: token, environment: environment)
        #expect(ok.status == 0, "\(ok.stdout) \(ok.stderr)")
        let missing = try await Self.run(["token", "verify", "--jwks-file", "/nonexistent/jwks.json"], input: token, environment: environment)
        #expect(missing.status == 3)
        #expect(try Self.json(missing.stdout)["status"] == .number(JSONNumber(503)))
        let otherAudience = try await Self.run(
            ["token", "verify", "--jwks-file", file.path], input: token,
            environment: environment.merging(["ENTRA_AUDIENCE": "another-app"]) { $1 })
        #expect(otherAudience.status == 1)
        #expect(try Self.json(otherAudience.stdout)["reason"] == .string("audience"))
    }

    @Test("cookie inspect verifies with SESSION_*, the tenant and the deployment, and shows the deployment")
    func cookieInspect() async throws {
        let secret = "cli-test-secret-cli-test-secret-0123456789"
        let environment = ["SESSION_SECRET": secret, "ENTRA_TENANT_ID": "d0d0d0d0-0000-4000-8000-00000000de01", "ENTRA_AUDIENCE": "app"]
        let now = Int(Date().timeIntervalSince1970)
        func mint(aud: String) async throws -> String {
            let claims = """
                {"aud":\(aud),"sub":"oid-1","email":"a@example.com","tid":"d0d0d0d0-0000-4000-8000-00000000de01","iat":\(now),"exp":\(now + 600)}
                """
            return try await ProcessRunner.run(
                ProcessRunner.python, [Self.root + "/Tests/Peers/pyjwt_peer.py", "mint-cookie", "--secret", secret, "--claims", claims]
            ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let cookie = try await mint(aud: #"["bmsdna-app-native-session","appnative:app"]"#)
        let inspected = try await Self.run(["cookie", "inspect"], input: "Cookie: theme=1; bms_session=\(cookie)", environment: environment)
        #expect(inspected.status == 0, "\(inspected.stdout) \(inspected.stderr)")
        let verdict = try Self.json(inspected.stdout)
        #expect(verdict["user"]?["oid"] == .string("oid-1"))
        #expect(verdict["deployment"] == .array([.string("appnative:app")]))
        #expect(verdict["expected_deployment"] == .string("appnative:app"))
        #expect(!inspected.stdout.contains(cookie))
        let wrongSecret = try await Self.run(["cookie", "inspect"], input: cookie,
                                             environment: environment.merging(["SESSION_SECRET": String(repeating: "z", count: 40)]) { $1 })
        #expect(wrongSecret.status == 1)
        #expect(try Self.json(wrongSecret.stdout)["reason"] == .string("signature"))

        // Another deployment's cookie: refused as `deployment`, showing where it belongs.
        let elsewhere = try await Self.run(["cookie", "inspect"], input: cookie,
                                           environment: environment.merging(["SESSION_AUDIENCE": "staging"]) { $1 })
        #expect(elsewhere.status == 1)
        let refused = try Self.json(elsewhere.stdout)
        #expect(refused["reason"] == .string("deployment"))
        #expect(refused["deployment"] == .array([.string("appnative:app")]))
        #expect(refused["expected_deployment"] == .string("staging"))

        // The reference's cookie names no deployment: read only with the migration switch.
        let reference = try await mint(aud: #""bmsdna-app-native-session""#)
        let strict = try await Self.run(["cookie", "inspect"], input: reference, environment: environment)
        #expect(strict.status == 1)
        #expect(try Self.json(strict.stdout)["reason"] == .string("deployment"))
        #expect(try Self.json(strict.stdout)["deployment"] == .array([]))
        let migrating = try await Self.run(["cookie", "inspect"], input: reference,
                                           environment: environment.merging(["SESSION_ACCEPT_REFERENCE_COOKIES": "true"]) { $1 })
        #expect(migrating.status == 0, "\(migrating.stdout)")
        #expect(try Self.json(migrating.stdout)["accepts_reference_cookies"] == .bool(true))

        let undetermined = try await Self.run(["cookie", "inspect"], input: cookie, environment: environment.merging(["ENTRA_AUDIENCE": ""]) { $1 })
        #expect(undetermined.status == 2)
        #expect(undetermined.stderr.contains("SESSION_AUDIENCE"), "\(undetermined.stderr)")
    }
}

@Suite("Configuration")
struct ConfigurationTests {
    @Test("docs/configuration.md is exactly `config reference`")
    func referenceMatchesDocs() async throws {
        let output = try await CommandLineTests.run(["config", "reference"])
        #expect(output.status == 0)
        let committed = try String(contentsOfFile: CommandLineTests.root + "/docs/configuration.md", encoding: .utf8)
        #expect(output.stdout == committed, "run `app-native-gateway config reference > docs/configuration.md`")
    }

    @Test("docs/operations.md holds exactly the table of `config metrics`")
    func metricTableMatchesDocs() async throws {
        let output = try await CommandLineTests.run(["config", "metrics"])
        #expect(output.status == 0)
        #expect(output.stdout.contains("`appnative_http_requests_total` | counter"))
        let committed = try String(contentsOfFile: CommandLineTests.root + "/docs/operations.md", encoding: .utf8)
        #expect(committed.contains("\n\n" + output.stdout + "\n"),
                "replace the table under \"## Metrics\" in docs/operations.md by `app-native-gateway config metrics`")
    }

    @Test("every problem is reported at once, each naming its variable; exit code 2")
    func problemsNameTheirVariables() async throws {
        let output = try await CommandLineTests.run(["config", "check"], environment: [
            "UPSTREAM_URL": "ftp://x", "ENTRA_TENANT_ID": "common", "ENTRA_AUDIENCE": "app", "MAX_CONNECTIONS": "zero",
            "SESSION_SECRET": "short", "IDENTITY_HEADERS": "bogus", "LISTEN": "nowhere",
        ])
        #expect(output.status == 2)
        for variable in ["UPSTREAM_URL", "ENTRA_TENANT_ID", "MAX_CONNECTIONS", "SESSION_SECRET", "IDENTITY_HEADERS", "LISTEN"] {
            #expect(output.stderr.contains("configuration: \(variable):"), "\(variable) not reported:\n\(output.stderr)")
        }
        #expect(!output.stderr.contains("short"), "a secret value was echoed")
    }

    @Test("a --config file provides settings; the environment wins")
    func configFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-\(UUID().uuidString).conf")
        try """
            # dev settings
            UPSTREAM_URL=http://127.0.0.1:9
            ENTRA_TENANT_ID=d0d0d0d0-0000-4000-8000-00000000de01
            ENTRA_AUDIENCE=app
            MAX_CONNECTIONS=zero
            """.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let bad = try await CommandLineTests.run(["config", "check", "--config", file.path])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("MAX_CONNECTIONS"))
        let fixed = try await CommandLineTests.run(["config", "check", "--config", file.path], environment: ["MAX_CONNECTIONS": "100"])
        #expect(fixed.status == 0, "\(fixed.stderr)")
    }
}
