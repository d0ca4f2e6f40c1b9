import AppNativeDevPeers
import AppNativeTesting
import Foundation
import Testing

/// The Go and Java examples of docs/identity.md (`docs/examples/verify-assertion/`), run with
/// Debian's `golang-go` and `default-jdk-headless` against assertions a real gateway produced:
/// they accept the gateway's own, and refuse a tampered one and one for another audience.
@Suite("The assertion verification examples (Go, Java)", .serialized)
struct AssertionExampleTests {
    static let directory = ProxyFixture.root + "/docs/examples/verify-assertion"

    /// The examples' command lines; each takes the key set's URL and the assertion.
    static let examples: [(name: String, command: [String])] = [
        ("Go", ["/usr/bin/go", "run", directory + "/verify_assertion.go"]),
        ("Java", ["/usr/bin/java", directory + "/VerifyAssertion.java"]),
    ]

    /// A private home and build cache: `go run` writes both, and tests share the machine.
    static func environment() throws -> [String: String] {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("assertion-examples")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        return [
            "PATH": "/usr/bin:/bin", "HOME": home.path, "GOCACHE": home.path + "/go-cache", "GOPATH": home.path + "/go",
            "GOFLAGS": "-buildvcs=false", "GOTOOLCHAIN": "local", "GOTELEMETRY": "off",
        ]
    }

    /// The assertion the upstream received for a request with the dev token, and the gateway's key-set URL.
    static func assertion(from fixture: ProxyFixture) async throws -> (assertion: String, jwksURL: String) {
        let port = fixture.port
        let token = try ProxyFixture.devProvider().token(issuedAt: Date().timeIntervalSince1970, lifetime: .seconds(3600))
        let response = try await blocking { try RawHTTPClient.get(port: port, "/echo", headers: ["Authorization": "Bearer \(token)"]) }
        #expect(response.status == 200)
        let assertion = try #require(try ProxyFixture.echoedHeaders(response).first { $0.0 == "x-appnative-identity" }?.1)
        return (assertion, "http://127.0.0.1:\(port)/.auth/jwks.json")
    }

    static func run(_ command: [String], _ jwksURL: String, _ assertion: String) async throws -> ProcessRunner.Output {
        try await ProcessRunner.run(command[0], Array(command.dropFirst()) + [jwksURL, assertion], environment: try environment())
    }

    @Test("each example accepts the gateway's assertion and prints its claims")
    func accepts() async throws {
        let fixture = try await ProxyFixture.start(["PUBLIC_PATHS": "/public"])
        defer { fixture.stop() }
        let (assertion, jwksURL) = try await Self.assertion(from: fixture)
        for example in Self.examples {
            let output = try await Self.run(example.command, jwksURL, assertion)
            #expect(output.status == 0, "\(example.name): \(output.stderr)")
            let claims = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any]
            #expect(claims?["sub"] as? String == DevIdentityProvider.User().objectID, "\(example.name): \(output.stdout)")
            #expect(claims?["tid"] as? String == DevIdentityProvider.tenantID, "\(example.name)")
            #expect(claims?["name"] as? String == "Zoë Müller-Łukasz", "\(example.name)")
        }
    }

    @Test("each example refuses a tampered assertion and one for another audience")
    func refuses() async throws {
        let fixture = try await ProxyFixture.start(["PUBLIC_PATHS": "/public"])
        let (assertion, jwksURL) = try await Self.assertion(from: fixture)
        // The claims changed after signing: the payload claims another subject.
        var parts = assertion.split(separator: ".").map(String.init)
        let payload = try #require(Data(base64URL: parts[1]))
        let forged = String(decoding: payload, as: UTF8.self).replacingOccurrences(of: DevIdentityProvider.User().objectID, with: "00000000-0000-4000-8000-00000000beef")
        parts[1] = Data(forged.utf8).base64URLEncoded()
        let tampered = parts.joined(separator: ".")
        for example in Self.examples {
            let output = try await Self.run(example.command, jwksURL, tampered)
            #expect(output.status == 1, "\(example.name): \(output.stdout)")
            #expect(output.stderr.contains("bad signature"), "\(example.name): \(output.stderr)")
            #expect(output.stdout.isEmpty, "\(example.name)")
        }
        fixture.stop()

        // A gateway that signs for another audience (ASSERTION_AUDIENCE): a valid signature, the wrong `aud`.
        let other = try await ProxyFixture.start(["PUBLIC_PATHS": "/public", "ASSERTION_AUDIENCE": "another-upstream"])
        defer { other.stop() }
        let (foreign, foreignJWKS) = try await Self.assertion(from: other)
        for example in Self.examples {
            let output = try await Self.run(example.command, foreignJWKS, foreign)
            #expect(output.status == 1, "\(example.name): \(output.stdout)")
            #expect(output.stderr.contains("wrong audience"), "\(example.name): \(output.stderr)")
        }
    }
}

extension Data {
    /// base64url without padding (RFC 7515 §2).
    fileprivate init?(base64URL text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }

    fileprivate func base64URLEncoded() -> String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
