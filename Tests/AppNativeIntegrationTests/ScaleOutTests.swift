import AppNativeDevPeers
import AppNativeHTTP
import AppNativeTesting
import Foundation
import Glibc
import Testing

/// Scale-out on one machine: three gateway replicas with shared secrets behind nginx as a load
/// balancer. Replicas share no state, so what one issues the others must accept, and a rolling
/// restart under load must lose no request.
@Suite("Scale-out: three replicas behind nginx", .serialized)
struct ScaleOutTests {
    /// Three replicas (each on the port the kernel gave it at its first start, which nginx names
    /// and a restart keeps), the JWKS/echo upstream, and nginx.
    final class Cluster: @unchecked Sendable {
        // Mutated only by the test's own sequential steps (restart), never concurrently.
        let upstream: LoopbackPeer
        let apns: FakeAPNsPeer
        let ports: [Int]
        var replicas: [GatewayProcess]
        let environment: [String: String]
        let front: ForwardAuthTests.Front

        init(
            upstream: LoopbackPeer, apns: FakeAPNsPeer, ports: [Int], replicas: [GatewayProcess], environment: [String: String],
            front: ForwardAuthTests.Front
        ) {
            self.upstream = upstream
            self.apns = apns
            self.ports = ports
            self.replicas = replicas
            self.environment = environment
            self.front = front
        }

        static func start() async throws -> Cluster {
            let root = ProxyFixture.root
            let jwksFile = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json")
            try ProxyFixture.devProvider().jwksDocument.write(to: jwksFile, atomically: true, encoding: .utf8)
            let upstream = try await LoopbackPeer.start(ProcessRunner.python, [root + "/Tests/Peers/upstream_peer.py", "--jwks", jwksFile.path])
            let apns = try await FakeAPNsPeer.start(tls: false)
            // What replicas share: the session secret, the assertion key, the tenant, the APNs key and
            // the push API keys. Nothing else.
            var environment = [
                "UPSTREAM_URL": "http://127.0.0.1:\(upstream.port)", "EVENT_LOOPS": "1",
                "ENTRA_TENANT_ID": DevIdentityProvider.tenantID, "ENTRA_AUDIENCE": DevIdentityProvider.audience,
                "ENTRA_JWKS_URL": "http://127.0.0.1:\(upstream.port)/test-jwks",
                "SESSION_SECRET": ProxyFixture.sessionSecret, "SESSION_SECURE": "false",
                "ASSERTION_KEYS": try String(contentsOfFile: root + "/keys/dev/assertion-dev-p256.pem", encoding: .utf8),
                "SHUTDOWN_GRACE_PERIOD": "5",
                "PUSH_API_KEYS": "scale-out-push-key-0123456789",
            ]
            environment.merge([
                "APNS_KEY": apns.keyPEM, "APNS_KEY_ID": FakeAPNsPeer.keyID, "APNS_TEAM_ID": FakeAPNsPeer.teamID,
                "APNS_BUNDLE_ID": FakeAPNsPeer.bundleID, "APNS_BASE_URL": apns.baseURL,
            ]) { $1 }
            var replicas: [GatewayProcess] = []
            for _ in 0..<3 {
                replicas.append(try await GatewayProcess.start(environment: environment))
            }
            let ports = replicas.map(\.port)
            let front = try await Self.startBalancer(ports: ports)
            return Cluster(upstream: upstream, apns: apns, ports: ports, replicas: replicas, environment: environment, front: front)
        }

        /// A replica started again on the port it had (nginx knows only that one).
        static func replica(port: Int, environment: [String: String]) async throws -> GatewayProcess {
            var env = environment
            env["LISTEN"] = "127.0.0.1:\(port)"
            return try await GatewayProcess.start(onFixedPortOf: env)
        }

        /// Requests a replica authenticated so far (its `auth.outcomes` counters): how much of
        /// the load reached it.
        static func authenticated(by replica: GatewayProcess) async -> Int {
            let adminPort = replica.adminPort
            let metrics = (try? await blocking { try RawHTTPClient.get(port: adminPort, "/metrics").bodyText }) ?? ""
            return metrics.split(separator: "\n").filter { $0.hasPrefix("appnative_auth_outcomes_total{") }
                .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
                .reduce(0) { $0 + Int($1) }
        }

        /// nginx round-robin over the replicas; a refused or reset connection is retried on the
        /// next replica (idempotent requests), as a load balancer in front of a rolling restart does.
        static func startBalancer(ports: [Int]) async throws -> ForwardAuthTests.Front {
            let servers = ports.map { "    server 127.0.0.1:\($0) max_fails=0;" }.joined(separator: "\n")
            return try await NginxPeer.start(http: """
                  upstream gateways {
                \(servers)
                    keepalive 32;
                  }
                  server {
                    listen 127.0.0.1:{port};
                    location / {
                      proxy_pass http://gateways;
                      proxy_http_version 1.1;
                      proxy_set_header Connection "";
                      proxy_next_upstream error timeout http_502 http_503;
                      proxy_next_upstream_tries 3;
                    }
                  }
                """)
        }

        func stop() {
            front.stop()
            for replica in replicas { replica.stop() }
            upstream.stop()
            apns.stop()
        }
    }

    static func token() throws -> String { try NativeRoutesFixture.token() }

    @Test("a cookie issued by one replica is accepted by the others; an assertion signed by one verifies with another's JWKS")
    func sharedSecrets() async throws {
        let cluster = try await Cluster.start()
        defer { cluster.stop() }
        let token = try Self.token()
        let first = cluster.replicas[0].port
        let session = try await blocking {
            try RawHTTPClient.request(port: first, method: "POST", "/.auth/session", headers: ["Authorization": "Bearer \(token)"])
        }
        #expect(session.status == 204)
        let cookie = try #require(session.head.headers.first("Set-Cookie")?.split(separator: ";").first.map(String.init))
        for replica in cluster.replicas.dropFirst() {
            let port = replica.port
            let me = try await blocking { try RawHTTPClient.get(port: port, "/.auth/me", headers: ["Cookie": cookie]) }
            #expect(me.status == 200, "replica on \(port): \(me.bodyText)")
            #expect(me.bodyText.contains("\"auth_method\":\"cookie\""))
        }
        // The assertion replica 0 sends upstream, verified by PyJWT with replica 2's published keys.
        let echo = try await blocking { try RawHTTPClient.get(port: first, "/echo", headers: ["Authorization": "Bearer \(token)"]) }
        let assertion = try #require(try ProxyFixture.echoedHeaders(echo).first { $0.0 == "x-appnative-identity" }?.1)
        let otherPort = cluster.replicas[2].port
        let jwks = try await blocking { try RawHTTPClient.get(port: otherPort, "/.auth/jwks.json") }
        let verify = """
            import json, sys, jwt
            keys = jwt.PyJWKSet.from_dict(json.loads(sys.argv[2]))
            kid = jwt.get_unverified_header(sys.argv[1])["kid"]
            key = next(k for k in keys.keys if k.key_id == kid)
            claims = jwt.decode(sys.argv[1], key.key, algorithms=["ES256"], audience="app-native-upstream", issuer="app-native-gateway")
            print(claims["sub"])
            """
        let result = try await ProcessRunner.run(ProcessRunner.python, ["-c", verify, assertion, jwks.bodyText])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == DevIdentityProvider.User().objectID)
    }

    @Test("the push API answers on every replica with the shared APNs key")
    func pushOnEveryReplica() async throws {
        let cluster = try await Cluster.start()
        defer { cluster.stop() }
        for (index, replica) in cluster.replicas.enumerated() {
            let adminPort = replica.adminPort
            let token = String(format: "%02x", index) + "ab"
            let body = Array(#"{"tokens":["\#(token)"],"title":"Replica \#(index)","body":"hello"}"#.utf8)
            let response = try await blocking {
                try RawHTTPClient.request(
                    port: adminPort, method: "POST", "/push/alert",
                    headers: ["Authorization": "Bearer scale-out-push-key-0123456789", "Content-Type": "application/json"], body: body
                )
            }
            #expect(response.status == 200, "replica \(index): \(response.bodyText)")
            #expect(response.bodyText.contains("\"sent\":1"), "replica \(index): \(response.bodyText)")
        }
        #expect(try cluster.apns.records().count == 3, "each replica's push reached the fake APNs")
    }

    @Test("a rolling restart (SIGTERM one replica at a time) under wrk load through nginx loses no request")
    func rollingRestart() async throws {
        let cluster = try await Cluster.start()
        defer { cluster.stop() }
        let token = try Self.token()
        let url = "http://127.0.0.1:\(cluster.front.port)/.auth/me"
        // Runs until stopped (SIGINT makes wrk print its report): the restarts are paced by what
        // the replicas served, not by the clock, so the load covers all of them however slow the
        // machine is.
        let wrkOutput = FileManager.default.temporaryDirectory.appendingPathComponent("wrk-\(UUID().uuidString).txt").path
        defer { try? FileManager.default.removeItem(atPath: wrkOutput) }
        let wrk = try ChildProcess(
            ["/bin/sh", "-c", "exec /usr/bin/wrk -t1 -c16 -d600s -H \"$1\" \"$2\" > \"$3\"", "wrk", "Authorization: Bearer \(token)", url, wrkOutput]
        )
        defer { wrk.kill() }
        /// Waits until the replica at `index` (since its start) has authenticated `count` requests.
        func waitForLoad(on index: Int, count: Int) async {
            var seen = 0
            let served = await eventually(pollingEvery: .milliseconds(100)) {
                seen = await Cluster.authenticated(by: cluster.replicas[index])
                return seen >= count
            }
            #expect(served, "replica \(index) authenticated \(seen) requests under load, waited for \(count)")
        }
        for index in cluster.replicas.indices { await waitForLoad(on: index, count: 100) }
        for index in cluster.replicas.indices {
            let exit = await cluster.replicas[index].terminate()
            #expect(exit == 0, "replica \(index) exit status")
            cluster.replicas[index] = try await Cluster.replica(port: cluster.ports[index], environment: cluster.environment)
            // nginx sends the restarted replica traffic again before the next one goes down.
            await waitForLoad(on: index, count: 100)
        }
        wrk.send(signal: SIGINT)
        let status = try await blocking { wrk.waitForExit() }
        let report = (try? String(contentsOfFile: wrkOutput, encoding: .utf8)) ?? ""
        print("rolling restart under load:\n\(report)")
        #expect(status == 0)
        let requests = report.split(separator: "\n").first { $0.contains("requests in") }
            .flatMap { Int($0.trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") } ?? 0
        #expect(requests >= 600, "wrk's report counts fewer requests than the replicas served: \(report)")
        #expect(!report.contains("Non-2xx or 3xx responses"), "\(report)")
        #expect(!report.contains("Socket errors"), "\(report)")
    }
}
