import AppNativeJSON
import AppNativeTesting
import Foundation
import Testing

/// The push API's door: its key, its route and its body cap are decided on the request head, so
/// no body byte is read (or kept) for a request that will be refused.
@Suite("Adversarial: push API", .serialized, .timeLimit(.minutes(4)))
struct PushAPIAdversarialTests {
    /// What `Tests/Peers/slow_body_clients.py` reports.
    struct Run {
        var answers: [[String: Any]]
        var unanswered: Int
        /// Connections the gateway closed (after its answer: their bodies stay unread).
        var closedByServer: Int

        var statuses: [Int] { answers.compactMap { $0["status"] as? Int } }
    }

    /// Runs the slow-body clients against `port` while sampling the gateway's VmRSS; returns their
    /// report, the resident size before they started and the largest one seen while they ran.
    static func attack(
        _ fixture: PushAPITests.Fixture, port: Int, _ arguments: [String]
    ) async throws -> (run: Run, baselineKiB: Int, peakKiB: Int) {
        let probe = ChildProcessProbe(pid: fixture.gateway.pid)
        let baselineKiB = probe.residentKiB
        let sampler = Task {
            var peak = probe.residentKiB
            while !Task.isCancelled {
                peak = max(peak, probe.residentKiB)
                try? await Task.sleep(for: .milliseconds(20))
            }
            return max(peak, probe.residentKiB)
        }
        let output = try await ProcessRunner.run(
            ProcessRunner.python,
            [ProcessRunner.repositoryRoot() + "/Tests/Peers/slow_body_clients.py", "--port", String(port)] + arguments)
        sampler.cancel()
        let peakKiB = await sampler.value
        let report = (try? JSONSerialization.jsonObject(with: Data(output.stdout.utf8))) as? [String: Any] ?? [:]
        let run = Run(answers: report["answers"] as? [[String: Any]] ?? [], unanswered: report["unanswered"] as? Int ?? -1,
                      closedByServer: report["closed_by_server"] as? Int ?? -1)
        #expect(output.status == 0, "slow_body_clients.py: \(output.stderr.suffix(2000))")
        return (run, baselineKiB, peakKiB)
    }

    /// A push the gateway accepts: the API still works after the attack.
    static func expectServes(_ fixture: PushAPITests.Fixture) async throws {
        let (status, answer) = try await fixture.post(
            "/push/silent", key: PushAPITests.keys[0], json: #"{"tokens":["\#(PushAPITests.ok)"]}"#)
        #expect(status == 200)
        #expect(answer["sent"] == 1)
    }

    @Test("200 connections without a key announce 8 MiB bodies and trickle them: each gets 401 at once and is closed, and the gateway keeps none of their bytes")
    func unauthenticatedFlood() async throws {
        let fixture = try await PushAPITests.start()
        defer { fixture.stop() }
        // Warm the path up, so the baseline holds what one push request leaves behind.
        try await Self.expectServes(fixture)
        // Each client would send 512 KiB (of the 8 MiB it announced) if nothing answered it: a
        // gateway that read bodies before the key would hold 100 MiB for these 200 connections.
        let (run, baselineKiB, peakKiB) = try await Self.attack(
            fixture, port: fixture.gateway.adminPort,
            ["--connections", "200", "--content-length", String(8 << 20), "--chunk", "8192", "--max-body", String(512 << 10),
             "--interval", "0.05", "--deadline", "90"])
        print("push API, 200 unauthenticated slow bodies: gateway VmRSS baseline \(baselineKiB) KiB, peak \(peakKiB) KiB")
        #expect(run.unanswered == 0, "connections without an answer although no body was ever complete")
        #expect(run.statuses.count == 200 && run.statuses.allSatisfy { $0 == 401 }, "statuses \(Set(run.statuses))")
        #expect(run.answers.allSatisfy { $0["www_authenticate"] as? String == "Bearer" })
        // The body stays unread: the answer is the connection's last (the closing sequence).
        #expect(run.closedByServer == 200)
        #expect(baselineKiB > 0 && peakKiB > 0, "the gateway's /proc/<pid>/status was readable")
        #expect(peakKiB - baselineKiB < 24 * 1024, "VmRSS grew by \(peakKiB - baselineKiB) KiB under 200 unauthenticated uploads")
        try await Self.expectServes(fixture)
    }

    @Test("a wrong key is refused on the head too: 401 before any body byte")
    func wrongKey() async throws {
        let fixture = try await PushAPITests.start()
        defer { fixture.stop() }
        let (run, _, _) = try await Self.attack(
            fixture, port: fixture.gateway.adminPort,
            ["--connections", "20", "--key", "key-one-0123456789abcdeX", "--content-length", String(8 << 20),
             "--max-body", String(64 << 10), "--deadline", "60"])
        #expect(run.unanswered == 0)
        #expect(run.statuses.count == 20 && run.statuses.allSatisfy { $0 == 401 }, "statuses \(Set(run.statuses))")
    }

    @Test("an authenticated body announced over the cap is 413 at once, without the gateway's memory growing by the cap")
    func authenticatedOverLimit() async throws {
        let fixture = try await PushAPITests.start(["PUSH_API_LISTEN": "127.0.0.1:0"])
        defer { fixture.stop() }
        let pushPort = try #require(fixture.gateway.pushPort)
        let (status, _) = try await fixture.post(
            "/push/silent", key: PushAPITests.keys[0], json: #"{"tokens":["\#(PushAPITests.ok)"]}"#, port: pushPort)
        #expect(status == 200)
        // Eight uploads announcing the cap plus one byte, each trickling up to 4 MiB: a gateway
        // that read them would hold 32 MiB of bodies, and then the cap once more per upload.
        let (run, baselineKiB, peakKiB) = try await Self.attack(
            fixture, port: pushPort,
            ["--connections", "8", "--key", PushAPITests.keys[0], "--content-length", String((8 << 20) + 1),
             "--chunk", "65536", "--max-body", String(4 << 20), "--interval", "0.02", "--deadline", "90"])
        print("push API, 8 authenticated over-limit bodies: gateway VmRSS baseline \(baselineKiB) KiB, peak \(peakKiB) KiB")
        #expect(run.unanswered == 0)
        #expect(run.statuses.count == 8 && run.statuses.allSatisfy { $0 == 413 }, "statuses \(Set(run.statuses))")
        #expect(run.closedByServer == 8)
        #expect(peakKiB - baselineKiB < 16 * 1024, "VmRSS grew by \(peakKiB - baselineKiB) KiB for refused uploads")
        let (after, answer) = try await fixture.post(
            "/push/silent", key: PushAPITests.keys[0], json: #"{"tokens":["\#(PushAPITests.ok)"]}"#, port: pushPort)
        #expect(after == 200)
        #expect(answer["sent"] == 1)
    }

    @Test("an authenticated request for an unknown kind or with another method is answered on the head (404, 405)")
    func routeOnTheHead() async throws {
        let fixture = try await PushAPITests.start()
        defer { fixture.stop() }
        for (arguments, expected) in [(["--path", "/push/nothing"], 404), (["--method", "PUT"], 405)] {
            let (run, _, _) = try await Self.attack(
                fixture, port: fixture.gateway.adminPort,
                arguments + ["--connections", "4", "--key", PushAPITests.keys[0], "--content-length", String(1 << 20),
                             "--max-body", String(64 << 10), "--deadline", "60"])
            #expect(run.unanswered == 0, "\(arguments)")
            #expect(run.statuses == Array(repeating: expected, count: 4), "\(arguments)")
        }
    }

    @Test("an authenticated chunked body is refused with 413 as soon as it passes the cap, before it ends")
    func chunkedOverLimit() async throws {
        let fixture = try await PushAPITests.start()
        defer { fixture.stop() }
        let port = fixture.gateway.adminPort
        let key = PushAPITests.keys[0]
        let status = try await blocking { () -> Int in
            let client = try RawHTTPClient(port: port, timeout: .seconds(60))
            try client.send("POST /push/silent HTTP/1.1\r\nHost: push\r\nAuthorization: Bearer \(key)\r\nTransfer-Encoding: chunked\r\n\r\n")
            // One chunk past the cap, and no last chunk: only a refusal on the cap can answer.
            let chunk = Array("10000\r\n".utf8) + [UInt8](repeating: UInt8(ascii: " "), count: 0x10000) + Array("\r\n".utf8)
            for _ in 0..<(((8 << 20) / 0x10000) + 1) { try client.send(chunk) }
            return try client.readResponse(to: "POST").status
        }
        #expect(status == 413)
        try await Self.expectServes(fixture)
    }
}
