import AppNativeCrypto
import AppNativeTesting
import Foundation
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

/// The reverse proxy through the real gateway process with a real upstream on loopback.
@Suite("Reverse proxy", .serialized)
struct ProxyTests {
    @Test("a request is forwarded with forwarding headers set and hop-by-hop and forged fields removed")
    func forwarding() async throws {
        let fixture = try await ProxyFixture.start()
        defer { fixture.stop() }
        let port = fixture.port
        let response = try await blocking {
            try RawHTTPClient.get(port: port, "/echo/path?q=1", headers: [
                "X-Forwarded-For": "6.6.6.6", "X-Forwarded-Proto": "https", "Forwarded": "for=6.6.6.6",
                "Connection": "keep-alive, X-Secret-Hop", "X-Secret-Hop": "1", "Keep-Alive": "timeout=5",
                "TE": "trailers", "Upgrade": "h2c", "X_Forwarded_User": "mallory", "Proxy": "http://evil",
                "X-Request-Id": "test-request-1", "Expect": "",
            ])
        }
        #expect(response.status == 200)
        let echo = try ProxyFixture.echo(response)
        #expect(echo["target"] as? String == "/echo/path?q=1")
        let headers = try ProxyFixture.echoedHeaders(response)
        let names = Set(headers.map(\.0))
        func value(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }
        #expect(value("x-forwarded-for") == "127.0.0.1")
        #expect(value("x-forwarded-proto") == "http")
        #expect(value("forwarded")?.hasPrefix("for=127.0.0.1;proto=http") == true)
        #expect(value("x-request-id") == "test-request-1")
        for forbidden in ["x-secret-hop", "keep-alive", "te", "upgrade", "x_forwarded_user", "proxy"] {
            #expect(!names.contains(forbidden), "\(forbidden) reached the upstream")
        }
        #expect(headers.filter { $0.0 == "host" }.count == 1)
    }

    @Test("trusted proxies' forwarding headers are extended, not replaced")
    func trustedProxies() async throws {
        let fixture = try await ProxyFixture.start(["TRUSTED_PROXIES": "127.0.0.0/8"])
        defer { fixture.stop() }
        let port = fixture.port
        let response = try await blocking {
            try RawHTTPClient.get(port: port, "/echo", headers: ["X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https"])
        }
        let headers = try ProxyFixture.echoedHeaders(response)
        #expect(headers.first { $0.0 == "x-forwarded-for" }?.1 == "203.0.113.9, 127.0.0.1")
        #expect(headers.first { $0.0 == "x-forwarded-proto" }?.1 == "https")
    }

    @Test("request bodies arrive intact: Content-Length and chunked")
    func bodies() async throws {
        let fixture = try await ProxyFixture.start()
        defer { fixture.stop() }
        let port = fixture.port
        let body = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let expected = SHA256.hash(body).map { String(format: "%02x", $0) }.joined()
        let fixed = try await blocking {
            let client = try RawHTTPClient(port: port)
            try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n\r\n")
            try client.send(body)
            return try client.readResponse(to: "POST")
        }
        #expect(try ProxyFixture.echo(fixed)["body_sha256"] as? String == expected)
        let chunked = try await blocking {
            let client = try RawHTTPClient(port: port)
            try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            var offset = 0
            while offset < body.count {
                let size = min(100_000, body.count - offset)
                try client.send(String(size, radix: 16) + "\r\n")
                try client.send(Array(body[offset..<(offset + size)]))
                try client.send("\r\n")
                offset += size
            }
            try client.send("0\r\n\r\n")
            return try client.readResponse(to: "POST")
        }
        #expect(try ProxyFixture.echo(chunked)["body_sha256"] as? String == expected)
        #expect(try ProxyFixture.echo(chunked)["body_length"] as? Int == body.count)
    }

    @Test("pipelined requests are answered in order on one connection, and upstream connections are reused")
    func pipeliningAndReuse() async throws {
        let fixture = try await ProxyFixture.start(["EVENT_LOOPS": "1"])
        defer { fixture.stop() }
        let port = fixture.port
        let targets = try await blocking { () -> [String] in
            let client = try RawHTTPClient(port: port)
            var batch = ""
            for index in 0..<5 { batch += "GET /echo/\(index) HTTP/1.1\r\nHost: x\r\n\r\n" }
            try client.send(batch)
            return try (0..<5).map { _ in try ProxyFixture.echo(try client.readResponse())["target"] as? String ?? "" }
        }
        #expect(targets == (0..<5).map { "/echo/\($0)" })
        for _ in 0..<10 { _ = try await blocking { try RawHTTPClient.get(port: port, "/echo") } }
        let count = try await blocking { try ProxyFixture.echo(try RawHTTPClient.get(port: port, "/count"))["accepted"] as? Int ?? 0 }
        #expect(count <= 2, "upstream saw \(count) connections for 16 sequential requests")
    }

    @Test("Expect: 100-continue is answered before the body is sent")
    func expectContinue() async throws {
        let fixture = try await ProxyFixture.start()
        defer { fixture.stop() }
        let port = fixture.port
        let response = try await blocking { () -> RawHTTPClient.Response in
            let client = try RawHTTPClient(port: port)
            try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
            var interim = [UInt8](repeating: 0, count: 25)
            var got = 0
            while got < 25 {
                let n = unsafe interim.withUnsafeMutableBytes { unsafe recv(try! fdOf(client), $0.baseAddress! + got, 25 - got, 0) }
                if n <= 0 { break }
                got += n
            }
            #expect(String(decoding: interim, as: UTF8.self) == "HTTP/1.1 100 Continue\r\n\r\n")
            try client.send("hello")
            return try client.readResponse(to: "POST")
        }
        #expect(try ProxyFixture.echo(response)["body_length"] as? Int == 5)
    }

    @Test("upstream down: 502; too slow: 504; both with a JSON detail")
    func upstreamFailures() async throws {
        // Held for the whole test, so nothing else can start listening there.
        let closed = try ClosedLoopbackPort()
        defer { withExtendedLifetime(closed) {} }
        let down = try await GatewayProcess.start(environment: ProxyFixture.publicEnvironment(["UPSTREAM_URL": "http://127.0.0.1:\(closed.port)"]))
        defer { down.stop() }
        let downPort = down.port
        let refused = try await blocking { try RawHTTPClient.get(port: downPort, "/") }
        #expect(refused.status == 502)
        #expect(refused.bodyText.contains("\"detail\""))

        let fixture = try await ProxyFixture.start(["UPSTREAM_RESPONSE_TIMEOUT": "0.3"])
        defer { fixture.stop() }
        let port = fixture.port
        let slow = try await blocking { try RawHTTPClient.get(port: port, "/slow?s=3") }
        #expect(slow.status == 504)
        #expect(slow.bodyText == #"{"detail":"Upstream timed out"}"#)
    }

    @Test("the upstream response timeout starts when the request is sent, not while a slow upload runs")
    func slowUploadIsNotCutByResponseTimeout() async throws {
        // The upload takes longer than the timeout (the pauses are lower bounds, which is what
        // the test needs); the timeout leaves a loaded upstream ample time to echo once the
        // body is complete.
        let fixture = try await ProxyFixture.start(["UPSTREAM_RESPONSE_TIMEOUT": "2"])
        defer { fixture.stop() }
        let port = fixture.port
        let response = try await blocking { () -> RawHTTPClient.Response in
            let client = try RawHTTPClient(port: port)
            try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\n\r\n")
            for byte in "abcdef" {
                usleep(500_000)
                try client.send(String(byte))
            }
            return try client.readResponse(to: "POST")
        }
        #expect(response.status == 200)
        #expect(try ProxyFixture.echo(response)["body_length"] as? Int == 6)
    }

    @Test("an upstream reset mid-response closes the client connection")
    func resetMidResponse() async throws {
        let fixture = try await ProxyFixture.start()
        defer { fixture.stop() }
        let port = fixture.port
        let outcome = try await blocking { () -> Bool in
            let client = try RawHTTPClient(port: port)
            try client.send("GET /reset HTTP/1.1\r\nHost: x\r\n\r\n")
            do {
                _ = try client.readResponse()
                return false
            } catch {
                return true
            }
        }
        #expect(outcome, "a truncated response must not look complete")
    }

    @Test("server-sent events: the first event arrives before the upstream finishes")
    func serverSentEvents() async throws {
        let fixture = try await ProxyFixture.start()
        defer { fixture.stop() }
        let port = fixture.port
        let first = try await blocking { () -> String in
            let client = try RawHTTPClient(port: port)
            try client.send("GET /sse HTTP/1.1\r\nHost: x\r\n\r\n")
            var seen = ""
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !seen.contains("data: first") {
                let n = unsafe recv(try fdOf(client), &buffer, buffer.count, 0)
                guard n > 0 else { break }
                seen += String(decoding: buffer[0..<n], as: UTF8.self)
            }
            _ = try RawHTTPClient.get(port: port, "/sse-release")
            while !seen.contains("data: second") {
                let n = unsafe recv(try fdOf(client), &buffer, buffer.count, 0)
                guard n > 0 else { break }
                seen += String(decoding: buffer[0..<n], as: UTF8.self)
            }
            return seen
        }
        #expect(first.contains("text/event-stream"))
        #expect(first.contains("data: first"))
        #expect(first.contains("data: second"))
    }

    @Test("WebSocket echo through the proxy with Python's websockets client and server")
    func webSocket() async throws {
        let upstream = try await LoopbackPeer.start(ProcessRunner.python, [ProxyFixture.root + "/Tests/Peers/upstream_peer.py"])
        defer { upstream.stop() }
        // The gateway proxies to the WebSocket listener of the peer.
        let gateway = try await GatewayProcess.start(environment: ProxyFixture.publicEnvironment(["UPSTREAM_URL": "http://127.0.0.1:\(upstream.ports[1])"]))
        defer { gateway.stop() }
        let script = """
            import asyncio, sys, websockets
            async def main():
                async with websockets.connect(sys.argv[1]) as ws:
                    for text in ["hello", "Zoë", "x" * 70000]:
                        await ws.send(text)
                        assert await ws.recv() == text
                    print("ok")
            asyncio.run(main())
            """
        let output = try await ProcessRunner.run(ProcessRunner.python, ["-c", script, "ws://127.0.0.1:\(gateway.port)/socket"])
        #expect(output.stdout.contains("ok"), "\(output.stderr.suffix(1500))")
    }

    @Test("SIGTERM during 50 in-flight requests loses none of them")
    func gracefulShutdown() async throws {
        let fixture = try await ProxyFixture.start()
        defer { fixture.upstream.stop() }
        let (port, upstreamPort) = (fixture.port, fixture.upstream.port)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group -> [Int] in
            for _ in 0..<50 {
                group.addTask { try await blocking { try RawHTTPClient.get(port: port, "/slow?s=3").status } }
            }
            // SIGTERM once all 50 reached the upstream (asked directly), so every one is in flight
            // in the gateway: none may be lost in the drain.
            var slowSeen = 0
            let allInFlight = await eventually(pollingEvery: .milliseconds(50)) {
                let count = try? await blocking { try ProxyFixture.echo(RawHTTPClient.get(port: upstreamPort, "/count"))["slow"] as? Int }
                slowSeen = count ?? slowSeen
                return slowSeen >= 50
            }
            #expect(allInFlight, "the upstream saw \(slowSeen) of the 50 requests")
            let exit = await fixture.gateway.terminate()
            #expect(exit == 0)
            var all = [Int]()
            for try await status in group { all.append(status) }
            return all
        }
        #expect(statuses.count == 50)
        #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses)")
    }

    @Test("a head that does not arrive in time gets 408")
    func headerTimeout() async throws {
        let fixture = try await ProxyFixture.start(["HEADER_TIMEOUT": "0.3"])
        defer { fixture.stop() }
        let port = fixture.port
        let response = try await blocking { () -> RawHTTPClient.Response in
            let client = try RawHTTPClient(port: port)
            try client.send("GET / HTTP/1.1\r\nHost: x\r\n")
            return try client.readResponse()
        }
        #expect(response.status == 408)
    }
}

func fdOf(_ client: RawHTTPClient) throws -> Int32 { client.descriptor }
