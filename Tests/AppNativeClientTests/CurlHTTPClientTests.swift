import AppNativeClient
import AppNativeTesting
import Foundation
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

/// End-to-end tests against real loopback peers (`Tests/Peers/http_fixture_server.py`).
/// No test contacts a non-loopback address, and none asserts on elapsed time.
@Suite("CurlHTTPClient against loopback peers", .fixturePeers)
struct CurlHTTPClientTests {
    let client = CurlHTTPClient(userAgent: "appnative-client-tests")

    // MARK: TLS

    @Test("HTTPS GET trusting the test CA succeeds")
    func httpsWithCAFile() async throws {
        try await withFixturePeer(tls: true) { peer in
            var request = HTTPRequest(
                url: peer.url("/json"), headers: [HTTPHeaderField(name: "Accept", value: "application/json")])
            request.caFile = try TestCertificates.shared().caFile
            let response = try await client.send(request)
            #expect(response.status == 200)
            #expect(response.httpVersion == 1)
            #expect(response.headers.value(named: "content-type") == "application/json")
            #expect(try jsonObject(response.body)["ok"] as? Bool == true)
            #expect(!response.isBodyTruncated)
        }
        client.shutdown()
    }

    @Test("HTTPS without the test CA fails verification")
    func httpsWithoutCAFile() async throws {
        try await withFixturePeer(tls: true) { peer in
            let error = await failure { () async throws(ClientError) in
                try await client.send(HTTPRequest(url: peer.url("/json")))
            }
            #expect(error?.code == .tlsFailed)
        }
        client.shutdown()
    }

    @Test("an unreadable CA file is a TLS failure, not a fallback to the system store")
    func missingCAFile() async throws {
        try await withFixturePeer(tls: true) { peer in
            var request = HTTPRequest(url: peer.url("/json"))
            request.caFile = "/nonexistent/appnative-ca.pem"
            let error = await failure { () async throws(ClientError) in try await client.send(request) }
            #expect(error?.code == .tlsFailed)
        }
        client.shutdown()
    }

    @Test("a followed redirect over HTTPS reaches its target")
    func followedRedirectOverTLS() async throws {
        try await withFixturePeer(tls: true) { peer in
            var request = HTTPRequest(url: peer.url("/redirect"))
            request.caFile = try TestCertificates.shared().caFile
            request.followsRedirects = true
            let response = try await client.send(request)
            #expect(response.status == 200)
            #expect(response.headers.value(named: "location") == nil)
            #expect(try jsonObject(response.body)["ok"] as? Bool == true)
        }
        client.shutdown()
    }

    // MARK: Cleartext policy

    @Test("http to loopback needs the opt-in flag")
    func cleartextLoopback() async throws {
        try await withFixturePeer { peer in
            let refused = await failure { () async throws(ClientError) in
                try await client.send(HTTPRequest(url: peer.url("/json")))
            }
            #expect(refused?.code == .insecureScheme)
            #expect(client.startedTransferCount == 0)

            for host in ["127.0.0.1", "localhost"] {
                let response = try await client.send(cleartextRequest(peer.url("/json", host: host)))
                #expect(response.status == 200)
            }
        }
        client.shutdown()
    }

    @Test(
        "http to a non-loopback host is refused before any traffic",
        arguments: [
            "http://example.com/keys",
            "http://10.0.0.1/keys",
            "http://192.168.1.1:8080/",
            "http://[2001:db8::1]/",
            "http://127.0.0.1.nip.io/",
            "http://localhost.example.com/",
        ]
    )
    func cleartextElsewhere(url: String) async throws {
        let error = await failure { () async throws(ClientError) in try await client.send(cleartextRequest(url)) }
        #expect(error?.code == .insecureScheme)
        #expect(client.startedTransferCount == 0)
        client.shutdown()
    }

    // MARK: Redirects, statuses, limits

    @Test("a redirect is returned, not followed")
    func redirectReturned() async throws {
        try await withFixturePeer { peer in
            let response = try await client.send(cleartextRequest(peer.url("/redirect")))
            #expect(response.status == 302)
            #expect(response.headers.value(named: "Location") == "/json")
            #expect(response.body == Array("redirecting".utf8))
        }
        client.shutdown()
    }

    @Test("a followed redirect may not continue over cleartext")
    func followedRedirectToCleartext() async throws {
        try await withFixturePeer { peer in
            var request = cleartextRequest(peer.url("/redirect"))
            request.followsRedirects = true
            let error = await failure { () async throws(ClientError) in try await client.send(request) }
            #expect(error?.code == .insecureScheme)
        }
        client.shutdown()
    }

    @Test("error statuses are responses", arguments: [201, 404, 429, 503])
    func statuses(status: Int) async throws {
        try await withFixturePeer { peer in
            let response = try await client.send(cleartextRequest(peer.url("/status/\(status)")))
            #expect(response.status == status)
            #expect(try jsonObject(response.body)["status"] as? Int == status)
        }
        client.shutdown()
    }

    @Test("a body over the cap fails, with or without Content-Length", arguments: ["/big", "/big-unsized"])
    func responseTooLarge(path: String) async throws {
        try await withFixturePeer { peer in
            var request = cleartextRequest(peer.url(path))
            request.maxResponseBytes = 1 << 20
            let error = await failure { () async throws(ClientError) in try await client.send(request) }
            #expect(error?.code == .responseTooLarge)
        }
        client.shutdown()
    }

    @Test("a cap of zero accepts only an empty body")
    func zeroCap() async throws {
        try await withFixturePeer { peer in
            var request = cleartextRequest(peer.url("/json"))
            request.maxResponseBytes = 0
            let error = await failure { () async throws(ClientError) in try await client.send(request) }
            #expect(error?.code == .responseTooLarge)

            let head = try await client.send(cleartextRequest(peer.url("/json"), method: "HEAD"))
            #expect(head.status == 200)
        }
        client.shutdown()
    }

    @Test("a body over the cap is cut when truncation is asked for", arguments: ["/big", "/big-unsized"])
    func responseTruncated(path: String) async throws {
        try await withFixturePeer { peer in
            var request = cleartextRequest(peer.url(path))
            request.maxResponseBytes = 1 << 20
            request.truncatesLargeResponses = true
            let response = try await client.send(request)
            #expect(response.status == 200)
            #expect(response.isBodyTruncated)
            #expect(response.body.count == 1 << 20)
        }
        client.shutdown()
    }

    @Test("a body within the cap is complete")
    func bodyWithinCap() async throws {
        try await withFixturePeer { peer in
            var request = cleartextRequest(peer.url("/big"))
            request.maxResponseBytes = 2 * 1024 * 1024
            let response = try await client.send(request)
            #expect(response.body.count == 2 * 1024 * 1024)
            #expect(!response.isBodyTruncated)

            let head = try await client.send(cleartextRequest(peer.url("/big"), method: "HEAD"))
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
        }
        client.shutdown()
    }

    @Test("response headers over their cap fail")
    func headersTooLarge() async throws {
        try await withFixturePeer { peer in
            var request = cleartextRequest(peer.url("/big-headers"))
            request.maxResponseHeaderBytes = 16 * 1024
            let error = await failure { () async throws(ClientError) in try await client.send(request) }
            #expect(error?.code == .responseTooLarge)

            request.maxResponseHeaderBytes = 256 * 1024
            let response = try await client.send(request)
            #expect(response.headers.values(named: "x-filler-63").count == 1)
        }
        client.shutdown()
    }

    // MARK: Failures on the wire

    @Test("a slow peer hits the whole-request timeout")
    func timeout() async throws {
        try await withFixturePeer { peer in
            var request = cleartextRequest(peer.url("/slow"))
            request.timeout = .milliseconds(300)
            let error = await failure { () async throws(ClientError) in try await client.send(request) }
            #expect(error?.code == .timeout)
            #expect(client.activeTransferCount == 0)
        }
        client.shutdown()
    }

    @Test("a request that times out waiting for the one connection was never sent; one on the wire may have been")
    func timeoutBeforeSending() async throws {
        let capped = CurlHTTPClient(userAgent: "appnative-client-tests", connectionsPerHost: 1)
        try await withFixturePeer { peer in
            var slow = cleartextRequest(peer.url("/slow"))
            // Far longer than the waiting request's timeout, so that one runs out first on a loaded
            // machine too; shorter than the peer's delay, so this one times out as well.
            slow.timeout = .seconds(6)
            let onTheWire = Task { try await capped.send(slow) }
            // Once the worker has added it, the slow request holds the only connection: a request
            // submitted after that waits for it.
            #expect(await eventually { capped.activeTransferCount == 1 }, "\(capped.activeTransferCount) transfers active")
            var waiting = cleartextRequest(peer.url("/json"))
            waiting.timeout = .milliseconds(500)
            let queued = await failure { () async throws(ClientError) in try await capped.send(waiting) }
            #expect(queued?.code == .timeout)
            #expect(queued?.wasNeverSent == true)
            let sent = await failure(of: onTheWire)
            #expect(sent?.code == .timeout)
            #expect(sent?.wasNeverSent == false)
        }
        capped.shutdown()
    }

    @Test("a closed port is a connect failure")
    func connectionRefused() async throws {
        let closed = try ClosedLoopbackPort()
        let error = await failure { () async throws(ClientError) in
            try await client.send(cleartextRequest("http://127.0.0.1:\(closed.port)/json"))
        }
        withExtendedLifetime(closed) {}
        #expect(error?.code == .connectFailed)
        #expect(error?.wasNeverSent == true)
        client.shutdown()
    }

    @Test("error reasons carry no header value, body or URL path")
    func reasonsStaySecretFree() async throws {
        try await withFixturePeer { peer in
            var request = cleartextRequest(peer.url("/slow?token=supersecret-query"), method: "POST")
            request.headers = [HTTPHeaderField(name: "Authorization", value: "Bearer supersecret-header")]
            request.body = Array("supersecret-body".utf8)
            request.timeout = .milliseconds(200)
            let error = try #require(await failure { () async throws(ClientError) in try await client.send(request) })
            #expect(error.code == .timeout)
            #expect(!error.description.contains("supersecret"))
            #expect(!"\(request.headers)".contains("supersecret"))
        }
        client.shutdown()
    }

    // MARK: Concurrency, reuse, cancellation, shutdown

    @Test("20 concurrent requests complete on one worker thread")
    func concurrentRequests() async throws {
        try await withFixturePeer { peer in
            let url = peer.url("/json")
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 {
                    group.addTask { [client] in try await client.send(cleartextRequest(url)).status }
                }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses == Array(repeating: 200, count: 20))
            #expect(client.workerThreadCount == 1)
            #expect(client.startedTransferCount == 20)
            #expect(client.activeTransferCount == 0)
        }
        client.shutdown()
    }

    @Test("sequential requests reuse one connection")
    func connectionReuse() async throws {
        try await withFixturePeer { peer in
            var ports: Set<String> = []
            for _ in 0..<3 {
                let response = try await client.send(cleartextRequest(peer.url("/json")))
                ports.insert(try #require(response.headers.value(named: "x-peer-port")))
            }
            #expect(ports.count == 1)
        }
        client.shutdown()
    }

    @Test("cancelling the caller removes the transfer and throws .cancelled")
    func cancellation() async throws {
        try await withFixturePeer { peer in
            var request = cleartextRequest(peer.url("/slow"))
            request.timeout = .seconds(60)
            let task = Task { [client] () async throws -> HTTPResponse in try await client.send(request) }
            let isOnTheWire = await eventually { client.activeTransferCount == 1 }
            #expect(isOnTheWire)
            task.cancel()
            let error = await failure(of: task)
            #expect(error?.code == .cancelled)
            #expect(client.activeTransferCount == 0)
        }
        client.shutdown()
    }

    @Test("a task cancelled before sending never starts a transfer")
    func cancelledBeforeSending() async throws {
        try await withFixturePeer { peer in
            let url = peer.url("/json")
            let task = Task { [client] () async throws -> HTTPResponse in
                unsafe withUnsafeCurrentTask { unsafe $0?.cancel() }
                return try await client.send(cleartextRequest(url))
            }
            let error = await failure(of: task)
            #expect(error?.code == .cancelled)
            #expect(client.startedTransferCount == 0)
        }
        client.shutdown()
    }

    @Test("shutdown fails in-flight requests and refuses new ones")
    func shutdown() async throws {
        try await withFixturePeer { peer in
            var request = cleartextRequest(peer.url("/slow"))
            request.timeout = .seconds(60)
            let task = Task { [client] () async throws -> HTTPResponse in try await client.send(request) }
            let isOnTheWire = await eventually { client.activeTransferCount == 1 }
            #expect(isOnTheWire)
            client.shutdown()
            let inFlight = await failure(of: task)
            #expect(inFlight?.code == .shutDown)
            let later = await failure { () async throws(ClientError) in
                try await client.send(cleartextRequest(peer.url("/json")))
            }
            #expect(later?.code == .shutDown)
            client.shutdown()
        }
    }

    // MARK: What goes on the wire

    @Test("request header fields arrive; curl's own extras are suppressed")
    func headersArrive() async throws {
        try await withFixturePeer { peer in
            var request = cleartextRequest(peer.url("/echo-headers"))
            request.headers = [
                HTTPHeaderField(name: "Accept", value: "application/json"),
                HTTPHeaderField(name: "X-Trace-Id", value: "abc 123"),
                HTTPHeaderField(name: "X-Empty", value: ""),
                HTTPHeaderField(name: "Authorization", value: "Bearer token-for-echo"),
            ]
            let response = try await client.send(request)
            let echoed = try #require(try jsonObject(response.body)["headers"] as? [String: String])
            #expect(echoed["accept"] == "application/json")
            #expect(echoed["x-trace-id"] == "abc 123")
            #expect(echoed["x-empty"] == "")
            #expect(echoed["authorization"] == "Bearer token-for-echo")
            #expect(echoed["user-agent"] == "appnative-client-tests")
            #expect(echoed["expect"] == nil)
            #expect(echoed["content-type"] == nil)
            #expect(echoed["accept-encoding"] == nil)
        }
        client.shutdown()
    }

    @Test("POST sends its body byte for byte")
    func postWithBody() async throws {
        try await withFixturePeer { peer in
            let body: [UInt8] = [0x7b, 0x00, 0x01, 0xff, 0x0d, 0x0a, 0x7d] + Array(repeating: 0x61, count: 4000)
            var request = cleartextRequest(peer.url("/echo"), method: "POST")
            request.headers = [HTTPHeaderField(name: "Content-Type", value: "application/octet-stream")]
            request.body = body
            let echoed = try jsonObject(try await client.send(request).body)
            #expect(echoed["method"] as? String == "POST")
            #expect(echoed["body_length"] as? Int == body.count)
            #expect(echoed["body_hex"] as? String == body.map { String(format: "%02x", $0) }.joined())
            let headers = try #require(echoed["headers"] as? [String: String])
            #expect(headers["content-type"] == "application/octet-stream")
            #expect(headers["content-length"] == "\(body.count)")
            #expect(headers["expect"] == nil)
        }
        client.shutdown()
    }

    @Test("response header values are read as ISO-8859-1, ASCII and obs-text alike")
    func latin1ResponseHeaders() async throws {
        try await withFixturePeer { peer in
            let response = try await client.send(cleartextRequest(peer.url("/latin1-header")))
            #expect(response.headers.value(named: "x-latin1") == "caf\u{e9} \u{ff}")
            #expect(response.headers.value(named: "x-ascii") == "plain")
        }
        client.shutdown()
    }

    @Test("a reused easy handle carries nothing over from the request before it")
    func reusedHandlesStartClean() async throws {
        try await withFixturePeer { peer in
            // One worker, sequential requests: each one after the first runs on the handle the
            // previous one returned to the pool.
            var first = cleartextRequest(peer.url("/echo"), method: "POST")
            first.headers = [
                HTTPHeaderField(name: "X-Only-First", value: "1"),
                HTTPHeaderField(name: "Authorization", value: "Bearer first-request-only"),
                HTTPHeaderField(name: "Content-Type", value: "application/octet-stream"),
            ]
            first.body = Array(repeating: 0x62, count: 3000)
            _ = try await client.send(first)
            let closed = try ClosedLoopbackPort()
            defer { withExtendedLifetime(closed) {} }
            let unreachable = closed.port
            var proxied = cleartextRequest("http://127.0.0.1:\(unreachable)/json")
            proxied.proxyURL = "http://127.0.0.1:\(peer.port)"
            #expect(try await client.send(proxied).headers.value(named: "x-fixture-proxied") == "1")
            for _ in 0..<3 {
                let echoed = try jsonObject(try await client.send(cleartextRequest(peer.url("/echo"))).body)
                #expect(echoed["method"] as? String == "GET")
                #expect(echoed["body_length"] as? Int == 0)
                let headers = try #require(echoed["headers"] as? [String: String])
                #expect(headers["x-only-first"] == nil)
                #expect(headers["authorization"] == nil)
                #expect(headers["content-type"] == nil)
                #expect(headers["content-length"] == nil)
                #expect(headers["user-agent"] == "appnative-client-tests")
                let direct = try await client.send(cleartextRequest(peer.url("/json")))
                #expect(direct.headers.value(named: "x-fixture-proxied") == nil, "the proxy of an earlier request")
            }
            // A failure leaves its handle reusable too.
            await #expect(throws: ClientError.self) {
                try await client.send(cleartextRequest("http://127.0.0.1:\(unreachable)/json"))
            }
            #expect(try await client.send(cleartextRequest(peer.url("/json"))).status == 200)
        }
        client.shutdown()
    }

    @Test("other methods are sent as given", arguments: ["PUT", "PATCH", "DELETE", "OPTIONS"])
    func otherMethods(method: String) async throws {
        try await withFixturePeer { peer in
            let echoed = try jsonObject(try await client.send(cleartextRequest(peer.url("/echo"), method: method)).body)
            #expect(echoed["method"] as? String == method)
            let headers = try #require(echoed["headers"] as? [String: String])
            // Methods that carry content send an empty one; the others send none.
            let expectsLength = ["PUT", "PATCH"].contains(method)
            #expect(headers["content-length"] == (expectsLength ? "0" : nil))
        }
        client.shutdown()
    }

    @Test("an explicit proxy is used; none is used otherwise")
    func explicitProxy() async throws {
        try await withFixturePeer { peer in
            // Nothing listens there: only the proxy can answer.
            let unreachable = try ClosedLoopbackPort()
            defer { withExtendedLifetime(unreachable) {} }
            var request = cleartextRequest("http://127.0.0.1:\(unreachable.port)/json")
            request.proxyURL = "http://127.0.0.1:\(peer.port)"
            let response = try await client.send(request)
            #expect(response.status == 200)
            #expect(response.headers.value(named: "x-fixture-proxied") == "1")

            let direct = try await client.send(cleartextRequest(peer.url("/json")))
            #expect(direct.headers.value(named: "x-fixture-proxied") == nil)
        }
        client.shutdown()
    }
}
