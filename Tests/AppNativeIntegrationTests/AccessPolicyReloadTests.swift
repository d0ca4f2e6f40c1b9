import AppNativeDevPeers
import AppNativeTesting
import Foundation
import Glibc
import Testing

/// `SIGHUP` re-reads `ACCESS_POLICY_FILE`: new requests use the new policy, a file that cannot be
/// used keeps the old one (logged and counted), and no request is lost while it happens.
@Suite("Access policy reloaded on SIGHUP", .serialized)
struct AccessPolicyReloadTests {
    static let adminOnly = #"{"rules":[{"path":"/echo/admin","roles":["Admin"]}]}"#
    static let open = #"{"rules":[]}"#

    static func status(_ port: Int, _ token: String) async throws -> Int {
        try await blocking { try RawHTTPClient.get(port: port, "/echo/admin/x", headers: ["Authorization": "Bearer \(token)"]).status }
    }

    static func reloads(_ adminPort: Int, _ outcome: String) async throws -> Int {
        let metrics = try await blocking { try RawHTTPClient.get(port: adminPort, "/metrics").bodyText }
        let prefix = "appnative_config_reloads_total{file=\"ACCESS_POLICY_FILE\",outcome=\"\(outcome)\"} "
        return metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) } ?? 0
    }

    /// A gateway whose `ACCESS_POLICY_FILE` starts as `adminOnly`, the file and the gateway to `body`.
    static func withGateway(_ body: (URL, ProxyFixture) async throws -> Void) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID().uuidString).json")
        try adminOnly.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let fixture = try await ProxyFixture.start(["PUBLIC_PATHS": "/public", "ACCESS_POLICY_FILE": file.path])
        defer { fixture.stop() }
        try await body(file, fixture)
    }

    @Test("a new policy applies after SIGHUP; an invalid file keeps the one in force")
    func reload() async throws {
        try await Self.withGateway { file, fixture in
            let port = fixture.port
            let adminPort = fixture.gateway.adminPort
            let token = try ProxyFixture.devProvider().token(issuedAt: Date().timeIntervalSince1970)
            #expect(try await Self.status(port, token) == 403)

            try Self.open.write(to: file, atomically: true, encoding: .utf8)
            fixture.gateway.send(signal: SIGHUP)
            #expect(await eventually { (try? await Self.status(port, token)) == 200 }, "the new policy never applied")
            #expect(try await Self.reloads(adminPort, "ok") == 1)

            try "{not json".write(to: file, atomically: true, encoding: .utf8)
            fixture.gateway.send(signal: SIGHUP)
            #expect(await eventually { (try? await Self.reloads(adminPort, "failed")) == 1 }, "the failed reload was not counted")
            #expect(try await Self.status(port, token) == 200, "an invalid file replaced the policy in force")
            #expect(await eventually { fixture.gateway.logs.contains("access policy reload failed") })
        }
    }

    @Test("SIGHUP under load: every request is answered by one policy or the other, none is lost")
    func reloadUnderLoad() async throws {
        try await Self.withGateway { file, fixture in
            let port = fixture.port
            let token = try ProxyFixture.devProvider().token(issuedAt: Date().timeIntervalSince1970)
            let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await blocking {
                            let client = try RawHTTPClient(port: port)
                            let request = "GET /echo/admin/x HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(token)\r\n\r\n"
                            return try (0..<300).map { _ in
                                try client.send(request)
                                return try client.readResponse().status
                            }
                        }
                    }
                }
                group.addTask {
                    for round in 0..<10 {
                        try (round.isMultiple(of: 2) ? Self.open : Self.adminOnly).write(to: file, atomically: true, encoding: .utf8)
                        fixture.gateway.send(signal: SIGHUP)
                        _ = await eventually(timeout: .seconds(5)) { (try? await Self.reloads(fixture.gateway.adminPort, "ok")) ?? 0 > round }
                    }
                    return []
                }
                var all = [Int]()
                for try await part in group { all += part }
                return all
        }
        #expect(statuses.count == 1200)
        #expect(statuses.allSatisfy { $0 == 200 || $0 == 403 }, "\(Set(statuses))")
        #expect(try await Self.reloads(fixture.gateway.adminPort, "failed") == 0)
        }
    }
}
