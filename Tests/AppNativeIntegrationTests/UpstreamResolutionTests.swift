import AppNativeDevPeers
import AppNativeTesting
import Foundation
import Glibc
import Synchronization
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

/// `UPSTREAM_URL` names a host whose addresses change while the gateway runs. The gateway runs in
/// a private mount namespace whose `/etc/hosts` is a temporary file bound over it (glibc reads the
/// file on every lookup); the test rewrites that file in place (same inode, so the bind mount sees
/// it). The machine's own `/etc/hosts` is never touched. The backends are real peers on
/// 127.0.0.2 and 127.0.0.3, on one port, each answering which address served.
@Suite("Upstream resolution", .serialized)
struct UpstreamResolutionTests {
    static let name = "backend.test"
    static let first = "127.0.0.2"
    static let second = "127.0.0.3"

    /// The hosts file, the key server, the two backends and a gateway in the namespace.
    final class Fixture: @unchecked Sendable {
        // @unchecked: `peers` is only replaced from the test's own task (restart), never concurrently.
        let hostsFile: String
        let jwks: LoopbackPeer
        var peers: [String: LoopbackPeer]
        let backendPort: Int
        var gateway: GatewayProcess!

        init(listing addresses: [String]) async throws {
            hostsFile = FileManager.default.temporaryDirectory.appendingPathComponent("hosts-\(UUID().uuidString)").path
            let jwksFile = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json")
            try ProxyFixture.devProvider().jwksDocument.write(to: jwksFile, atomically: true, encoding: .utf8)
            jwks = try await LoopbackPeer.start(ProcessRunner.python, [ProxyFixture.root + "/Tests/Peers/jwks_server.py", "--document", jwksFile.path])
            let a = try await Self.startPeer(UpstreamResolutionTests.first, port: 0)
            backendPort = a.port
            let b = try await Self.startPeer(UpstreamResolutionTests.second, port: a.port)
            peers = [UpstreamResolutionTests.first: a, UpstreamResolutionTests.second: b]
            try writeHosts(addresses)
        }

        static func startPeer(_ host: String, port: Int) async throws -> LoopbackPeer {
            try await LoopbackPeer.start(
                ProcessRunner.python, [ProxyFixture.root + "/Tests/Peers/address_peer.py", "--host", host, "--port", String(port)])
        }

        /// Rewrites the hosts file in place (truncate and write: the inode the namespace's bind
        /// mount points at stays the same).
        func writeHosts(_ addresses: [String], extraLines: [String] = []) throws {
            let text = "127.0.0.1 localhost\n" + addresses.map { "\($0) \(UpstreamResolutionTests.name)\n" }.joined()
                + extraLines.map { $0 + "\n" }.joined()
            guard let file = unsafe fopen(hostsFile, "w") else { throw ChildProcess.Failure(description: "cannot open \(hostsFile)") }
            unsafe fputs(text, file)
            unsafe fclose(file)
        }

        func startGateway(_ environment: [String: String] = [:]) async throws {
            var env = [
                "UPSTREAM_URL": "http://\(UpstreamResolutionTests.name):\(backendPort)", "EVENT_LOOPS": "2",
                "UPSTREAM_DNS_REFRESH": "1", "UPSTREAM_EJECT_SECONDS": "1",
                "ENTRA_TENANT_ID": DevIdentityProvider.tenantID, "ENTRA_AUDIENCE": DevIdentityProvider.audience,
                "ENTRA_JWKS_URL": "http://127.0.0.1:\(jwks.port)/keys", "PUBLIC_PATHS": "/",
            ]
            env.merge(environment) { $1 }
            // A private mount namespace: the bind mount is seen by the gateway alone.
            let launcher = ["unshare", "--mount", "--propagation", "private", "sh", "-c", #"mount --bind "$0" /etc/hosts && exec "$@""#, hostsFile]
            gateway = try await GatewayProcess.start(environment: env, launcher: launcher)
        }

        /// Which address served `path` through the gateway, on a fresh client connection.
        func servedBy(_ path: String = "/who") async throws -> (status: Int, servedBy: String?, echo: [String: Any]) {
            let port = gateway.port
            let response = try await blocking { try RawHTTPClient.get(port: port, path) }
            let echo = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
            return (response.status, echo["served_by"] as? String, echo)
        }

        /// Connections open at the peer on `address` (the gateway's pooled ones), asked directly.
        func openConnections(at address: String) async throws -> Int {
            let port = backendPort
            let response = try await blocking {
                let client = try RawHTTPClient(port: port, host: address)
                try client.send("GET /__connections HTTP/1.1\r\nHost: \(address)\r\nConnection: close\r\n\r\n")
                return try client.readResponse()
            }
            let echo = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
            // This very connection is one of them.
            return ((echo["open"] as? Int) ?? 0) - 1
        }

        func metrics() async throws -> String {
            let adminPort = gateway.adminPort
            return try await blocking { try RawHTTPClient.get(port: adminPort, "/metrics").bodyText }
        }

        func readiness() async -> Int? {
            let adminPort = gateway.adminPort
            return try? await blocking { try RawHTTPClient.get(port: adminPort, "/readyz") }.status
        }

        func stop() {
            gateway?.stop()
            for peer in peers.values { peer.stop() }
            jwks.stop()
            try? FileManager.default.removeItem(atPath: hostsFile)
        }
    }

    @Test("the name moves from one address to another: traffic follows, pooled connections to the old one are retired")
    func trafficFollowsTheName() async throws {
        let fixture = try await Fixture(listing: [Self.first])
        defer { fixture.stop() }
        try await fixture.startGateway()
        for _ in 0..<5 {
            let answer = try await fixture.servedBy()
            #expect(answer.status == 200)
            #expect(answer.servedBy == Self.first)
        }
        var pooled = 0
        _ = try await eventually { pooled = try await fixture.openConnections(at: Self.first); return pooled >= 1 }
        #expect(pooled >= 1, "the gateway keeps a pooled connection to \(Self.first)")

        try fixture.writeHosts([Self.second])
        var last: String?
        let moved = try await eventually(timeout: .seconds(60), pollingEvery: .milliseconds(100)) {
            last = try await fixture.servedBy().servedBy
            return last == Self.second
        }
        #expect(moved, "still served by \(last ?? "nobody"): \(fixture.gateway.logs.suffix(1500))")
        // From then on every request goes to the new address.
        for _ in 0..<5 { #expect(try await fixture.servedBy().servedBy == Self.second) }
        // The idle connections to the address no longer listed are closed by the gateway.
        let retired = try await eventually(timeout: .seconds(60), pollingEvery: .milliseconds(100)) {
            pooled = try await fixture.openConnections(at: Self.first)
            return pooled == 0
        }
        #expect(retired, "\(pooled) connections still open to \(Self.first)")
        #expect(fixture.gateway.logs.contains("upstream addresses changed"))
        let metrics = try await fixture.metrics()
        let retiredLine = metrics.split(separator: "\n").first { $0.hasPrefix(#"appnative_upstream_retired_total{route="default"} "#) }
        #expect(retiredLine.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0 > 0, "\(metrics)")
    }

    @Test("a name listing two addresses: new connections go to both in turn")
    func everyAddressIsUsed() async throws {
        let fixture = try await Fixture(listing: [Self.first, Self.second])
        defer { fixture.stop() }
        // No pooling: every request opens a connection, to the next address in turn.
        try await fixture.startGateway(["UPSTREAM_MAX_IDLE": "0"])
        var served: [String: Int] = [:]
        for _ in 0..<10 {
            let answer = try await fixture.servedBy()
            #expect(answer.status == 200)
            served[answer.servedBy ?? "none", default: 0] += 1
        }
        #expect(served[Self.first, default: 0] >= 4 && served[Self.second, default: 0] >= 4, "\(served)")
        let metrics = try await fixture.metrics()
        #expect(metrics.contains(#"appnative_upstream_addresses{state="healthy",upstream="backend.test:\#(fixture.backendPort)"} 2"#), "\(metrics)")
    }

    @Test("a name that does not resolve at start-up: the gateway starts not ready, answers 502 naming the host in its log, and works once it resolves")
    func startsBeforeTheNameResolves() async throws {
        let fixture = try await Fixture(listing: [])
        defer { fixture.stop() }
        try await fixture.startGateway()
        #expect(await fixture.readiness() == 503)
        let port = fixture.gateway.port
        let secret = "Bearer do-not-log-this-0123456789"
        let refused = try await blocking {
            try RawHTTPClient.get(port: port, "/who?access_token=query-secret-42", headers: ["Authorization": secret])
        }
        #expect(refused.status == 502)
        let logged = await eventually { fixture.gateway.logs.contains("upstream host \(Self.name) does not resolve") }
        #expect(logged, "\(fixture.gateway.logs.suffix(1500))")
        #expect(!fixture.gateway.logs.contains("do-not-log-this"))
        #expect(!fixture.gateway.logs.contains("query-secret-42"))

        try fixture.writeHosts([Self.first])
        var status: Int?
        let ready = await eventually(timeout: .seconds(60), pollingEvery: .milliseconds(100)) {
            status = await fixture.readiness()
            return status == 200
        }
        #expect(ready, "readyz \(status.map(String.init) ?? "none"): \(fixture.gateway.logs.suffix(1500))")
        let answer = try await fixture.servedBy()
        #expect(answer.status == 200)
        #expect(answer.servedBy == Self.first)
    }

    @Test("one backend killed and restarted under load: no request that could be retried fails")
    func backendKilledAndRestartedUnderLoad() async throws {
        let fixture = try await Fixture(listing: [Self.first, Self.second])
        defer { fixture.stop() }
        try await fixture.startGateway(["UPSTREAM_MAX_IDLE": "0"])
        let port = fixture.gateway.port
        // Four clients send requests back to back until told to stop (at most `maxPerWorker`
        // each): the backend is killed once they are under way, restarted after another 200
        // requests, and the load stops 200 requests after that.
        let workers = 4
        let maxPerWorker = 5_000
        let tally = LoadTally()
        let load = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<workers {
                    group.addTask {
                        try await blocking {
                            let client = try RawHTTPClient(port: port)
                            for index in 0..<maxPerWorker where !tally.isStopped.load(ordering: .relaxed) {
                                try client.send("GET /load/\(index) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
                                let response = try client.readResponse()
                                if response.status != 200 {
                                    tally.failures.withLock { $0.append("\(index): \(response.status) \(response.bodyText)") }
                                }
                                tally.progress.add(1, ordering: .relaxed)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        var done = 0
        func awaitProgress(beyond mark: Int) async -> Bool {
            await eventually(timeout: .seconds(120)) {
                done = tally.progress.load(ordering: .relaxed)
                return done >= mark || done >= workers * maxPerWorker
            }
        }
        _ = await awaitProgress(beyond: 100)
        fixture.peers[Self.second]?.stop()
        let killedAt = tally.progress.load(ordering: .relaxed)
        _ = await awaitProgress(beyond: killedAt + 200)
        let restartedAt = tally.progress.load(ordering: .relaxed)
        fixture.peers[Self.second] = try await Fixture.startPeer(Self.second, port: fixture.backendPort)
        _ = await awaitProgress(beyond: restartedAt + 200)
        tally.isStopped.store(true, ordering: .relaxed)
        try await load.value
        #expect(restartedAt - killedAt >= 200, "the backend was down for \(restartedAt - killedAt) requests only")
        let failed = tally.failures.withLock { $0 }
        #expect(failed.isEmpty, "\(failed.count) of \(done) failed: \(failed.prefix(5)) \(fixture.gateway.logs.suffix(1500))")
        #expect(fixture.gateway.logs.contains("upstream address ejected"))
        // Once its ejection is over, the restarted backend gets traffic again.
        let back = try await eventually(timeout: .seconds(60), pollingEvery: .milliseconds(100)) {
            try await fixture.servedBy().servedBy == Self.second
        }
        #expect(back)
        let metrics = try await fixture.metrics()
        #expect(metrics.contains(#"appnative_upstream_ejections_total{address="127.0.0.3:\#(fixture.backendPort)""#), "\(metrics)")
    }

    @Test("a native route's own URL (NATIVE_UPSTREAM_<ROUTE>_URL) whose name resolves only later: 502 naming the host, then served")
    func nativeRouteURL() async throws {
        let fixture = try await Fixture(listing: [])
        defer { fixture.stop() }
        try await fixture.startGateway([
            "UPSTREAM_URL": "http://\(Self.first):\(fixture.backendPort)", "PUBLIC_PATHS": "",
            "NATIVE_UPSTREAM_LOCATIONS_URL": "http://\(Self.name):\(fixture.backendPort)/hooks/v2/locations",
        ])
        let port = fixture.gateway.port
        let token = try NativeRoutesFixture.token()
        let send: @Sendable () throws -> RawHTTPClient.Response = {
            try RawHTTPClient.request(
                port: port, method: "POST", "/api/locations",
                headers: ["Authorization": "Bearer " + token, "Content-Type": "application/json"],
                body: Array(#"{"device_id":"d1","latitude":1,"longitude":2}"#.utf8))
        }
        let refused = try await blocking(send)
        #expect(refused.status == 502)
        #expect(await eventually { fixture.gateway.logs.contains("upstream host \(Self.name) does not resolve") })
        #expect(!fixture.gateway.logs.contains(token))

        try fixture.writeHosts([Self.second])
        var status = refused.status
        let served = try await eventually(timeout: .seconds(60), pollingEvery: .milliseconds(100)) {
            status = try await blocking(send).status
            return status == 200
        }
        #expect(served, "status \(status): \(fixture.gateway.logs.suffix(1500))")
        // The route's events went to the address its name now resolves to.
        #expect(try await fixture.openConnections(at: Self.second) >= 1)
    }

    @Test("an https upstream by name: the certificate is verified for the URL's host, whatever address it resolves to")
    func tlsVerifiesTheName() async throws {
        let fixture = try await Fixture(listing: [Self.first])
        defer { fixture.stop() }
        // A certificate for backend.test only (not for 127.0.0.2), from the test CA.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("backend-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let root = ProxyFixture.root
        let script = """
            set -e
            cd "$0"
            openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout key.pem -subj /CN=\(Self.name) -out request.pem 2>/dev/null
            printf 'subjectAltName=DNS:\(Self.name)\\n' > extensions.cnf
            openssl x509 -req -in request.pem -CA "$1/keys/test/ca.pem" -CAkey "$1/keys/test/ca-key.pem" -CAcreateserial \\
              -CAserial serial.srl -days 2 -extfile extensions.cnf -out certificate.pem 2>/dev/null
            """
        let made = try await ProcessRunner.run("/bin/sh", ["-c", script, directory, root], environment: ["PATH": "/usr/bin:/bin"])
        try #require(made.status == 0, "\(made.stderr)")
        // A TLS front on 127.0.0.2 (the gateway itself, terminating TLS) before the backend there.
        let front = try await GatewayProcess.start(environment: ProxyFixture.publicEnvironment([
            "LISTEN": "\(Self.first):0", "UPSTREAM_URL": "http://\(Self.first):\(fixture.backendPort)",
            "TLS_CERT_FILE": directory + "/certificate.pem", "TLS_KEY_FILE": directory + "/key.pem",
        ]))
        defer { front.stop() }
        try fixture.writeHosts([Self.first], extraLines: ["\(Self.first) other.test"])
        try await fixture.startGateway([
            "UPSTREAM_URL": "https://\(Self.name):\(front.port)", "UPSTREAM_CA_FILE": root + "/keys/test/ca.pem",
        ])
        let answer = try await fixture.servedBy()
        #expect(answer.status == 200, "\(fixture.gateway.logs.suffix(1500))")
        #expect(answer.servedBy == Self.first)
        fixture.gateway.stop()

        // The same address under a name the certificate does not carry is refused.
        try await fixture.startGateway([
            "UPSTREAM_URL": "https://other.test:\(front.port)", "UPSTREAM_CA_FILE": root + "/keys/test/ca.pem",
        ])
        #expect(try await fixture.servedBy().status == 502)
    }

    @Test("`config check`: a name that does not resolve yet is accepted; the new settings out of range are refused, each named")
    func configCheck() async throws {
        let base = ProxyFixture.publicEnvironment(["UPSTREAM_URL": "http://not-resolving-yet.invalid:8000"])
        let accepted = try await CommandLineTests.run(["config", "check"], environment: base.merging([
            "UPSTREAM_DNS_REFRESH": "5", "UPSTREAM_EJECT_SECONDS": "3", "UPSTREAM_HOST_HEADER": "upstream",
        ]) { $1 })
        #expect(accepted.status == 0, "\(accepted.stderr)")
        let refused = try await CommandLineTests.run(["config", "check"], environment: base.merging([
            "UPSTREAM_DNS_REFRESH": "0", "UPSTREAM_EJECT_SECONDS": "soon", "UPSTREAM_HOST_HEADER": "backend",
        ]) { $1 })
        #expect(refused.status == 2)
        for variable in ["UPSTREAM_DNS_REFRESH", "UPSTREAM_EJECT_SECONDS", "UPSTREAM_HOST_HEADER"] {
            #expect(refused.stderr.contains("configuration: \(variable): "), "\(variable): \(refused.stderr)")
        }
        #expect(refused.stderr.contains("must be client or upstream"))
    }

    @Test("UPSTREAM_HOST_HEADER: the client's Host by default, the URL's host[:port] with upstream; X-Forwarded-Host the client's either way")
    func hostHeader() async throws {
        let fixture = try await Fixture(listing: [Self.first])
        defer { fixture.stop() }
        try await fixture.startGateway()
        let client = try await fixture.servedBy().echo
        let clientHost = "127.0.0.1:\(fixture.gateway.port)"
        #expect(client["host"] as? String == clientHost)
        #expect(client["x_forwarded_host"] as? String == clientHost)
        fixture.gateway.stop()

        try await fixture.startGateway(["UPSTREAM_HOST_HEADER": "upstream"])
        let upstream = try await fixture.servedBy().echo
        #expect(upstream["host"] as? String == "\(Self.name):\(fixture.backendPort)")
        #expect(upstream["x_forwarded_host"] as? String == "127.0.0.1:\(fixture.gateway.port)")
    }
}

/// Requests completed and the ones that failed, counted by the load's workers.
final class LoadTally: Sendable {
    let progress = Atomic<Int>(0)
    let isStopped = Atomic<Bool>(false)
    let failures = Mutex<[String]>([])
}
