import AppNativeTesting
import Foundation
import Glibc
import Testing

/// TLS termination with the test certificate, checked by curl (OpenSSL) as the client.
@Suite("TLS termination", .serialized)
struct TLSTests {
    static let root = ProcessRunner.repositoryRoot()

    static func curl(_ arguments: [String]) async throws -> ProcessRunner.Output {
        try await ProcessRunner.run("/usr/bin/curl", ["-sS", "--max-time", "10"] + arguments)
    }

    @Test("TLS 1.2+ with the configured certificate; TLS 1.1 refused; SIGHUP reloads and keeps serving")
    func termination() async throws {
        let fixture = try await ProxyFixture.start([
            "TLS_CERT_FILE": Self.root + "/keys/test/localhost.pem",
            "TLS_KEY_FILE": Self.root + "/keys/test/localhost-key.pem",
        ])
        defer { fixture.stop() }
        let url = "https://localhost:\(fixture.port)/echo/tls"
        let ok = try await Self.curl(["--cacert", Self.root + "/keys/test/ca.pem", url])
        #expect(ok.status == 0, "\(ok.stderr)")
        let echo = try #require(try JSONSerialization.jsonObject(with: Data(ok.stdout.utf8)) as? [String: Any])
        let headers = (echo["headers"] as? [[String]] ?? []).map { ($0[0].lowercased(), $0[1]) }
        #expect(headers.first { $0.0 == "x-forwarded-proto" }?.1 == "https")
        let old = try await Self.curl(["--cacert", Self.root + "/keys/test/ca.pem", "--tlsv1.1", "--tls-max", "1.1", url])
        #expect(old.status != 0, "TLS 1.1 must be refused")
        let untrusted = try await Self.curl([url])
        #expect(untrusted.status != 0, "the test CA is not in the system store")
        // keys/test/localhost.pem's notAfter: 2046-11-29 22:45:29Z.
        let adminPort = fixture.gateway.adminPort
        let metrics = try await blocking { try RawHTTPClient.get(port: adminPort, "/metrics").bodyText }
        #expect(metrics.contains("\nappnative_tls_certificate_expiry_timestamp_seconds 2427144329\n"), "\(metrics)")
        fixture.gateway.send(signal: SIGHUP)
        let gateway = fixture.gateway
        #expect(await eventually { gateway.logs.contains("TLS certificate reloaded") }, "\(gateway.logs.suffix(2000))")
        let again = try await Self.curl(["--cacert", Self.root + "/keys/test/ca.pem", url])
        #expect(again.status == 0, "\(again.stderr)")
    }

    @Test("an https upstream is verified: the test CA is trusted only when configured")
    func httpsUpstream() async throws {
        let front = try await ProxyFixture.start([
            "TLS_CERT_FILE": Self.root + "/keys/test/localhost.pem",
            "TLS_KEY_FILE": Self.root + "/keys/test/localhost-key.pem",
        ])
        defer { front.stop() }
        let trusting = try await GatewayProcess.start(environment: ProxyFixture.publicEnvironment([
            "UPSTREAM_URL": "https://localhost:\(front.port)", "UPSTREAM_CA_FILE": Self.root + "/keys/test/ca.pem",
        ]))
        defer { trusting.stop() }
        let trustingPort = trusting.port
        let response = try await blocking { try RawHTTPClient.get(port: trustingPort, "/big?n=3000000") }
        #expect(response.status == 200)
        #expect(response.body.count == 3_000_000)
        let strict = try await GatewayProcess.start(environment: ProxyFixture.publicEnvironment(["UPSTREAM_URL": "https://localhost:\(front.port)"]))
        defer { strict.stop() }
        let strictPort = strict.port
        let refused = try await blocking { try RawHTTPClient.get(port: strictPort, "/echo") }
        #expect(refused.status == 502)
    }

    @Test("a missing or mismatched key is a configuration error naming the variable (exit 2)")
    func badConfiguration() async throws {
        let output = try await ProcessRunner.run(GatewayExecutable.path, ["serve"], environment: [
            "UPSTREAM_URL": "http://127.0.0.1:9", "LISTEN": "127.0.0.1:0", "ADMIN_LISTEN": "127.0.0.1:0",
            "TLS_CERT_FILE": Self.root + "/keys/test/localhost.pem",
            "TLS_KEY_FILE": Self.root + "/keys/test/ca-key.pem",
        ])
        #expect(output.status == 2)
        #expect(output.stderr.contains("TLS_CERT_FILE") || output.stderr.contains("TLS_KEY_FILE"))
        let incomplete = try await ProcessRunner.run(GatewayExecutable.path, ["serve"], environment: [
            "UPSTREAM_URL": "http://127.0.0.1:9", "TLS_KEY_FILE": "/x",
        ])
        #expect(incomplete.status == 2)
        #expect(incomplete.stderr.contains("TLS_CERT_FILE"))
    }
}
