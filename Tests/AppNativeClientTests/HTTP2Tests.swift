import AppNativeClient
import Testing

/// HTTP/2 as APNs will need it, against nginx: ALPN negotiation, many requests multiplexed on
/// one connection, h2c prior knowledge for loopback fakes, and a size-capped stream that does
/// not take the connection down.
@Suite("HTTP/2 against nginx", .nginxPeer)
struct HTTP2Tests {
    let client = CurlHTTPClient(userAgent: "appnative-client-tests")

    private func peer() throws -> NginxPeer {
        try #require(NginxPeerTrait.current)
    }

    private func tlsRequest(_ url: String) throws -> HTTPRequest {
        var request = HTTPRequest(url: url)
        request.caFile = try TestCertificates.shared().caFile
        return request
    }

    @Test("HTTPS negotiates HTTP/2 when the server offers it")
    func negotiatesHTTP2() async throws {
        let response = try await client.send(try tlsRequest(try peer().url("/json")))
        #expect(response.status == 200)
        #expect(response.httpVersion == 2)
        #expect(try jsonObject(response.body)["ok"] as? Bool == true)
        client.shutdown()
    }

    @Test("concurrent requests share one multiplexed connection")
    func multiplexes() async throws {
        let request = try tlsRequest(try peer().url("/json"))
        let responses = try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
            for _ in 0..<10 {
                group.addTask { [client] in try await client.send(request) }
            }
            var responses: [HTTPResponse] = []
            for try await response in group { responses.append(response) }
            return responses
        }
        #expect(responses.count == 10)
        #expect(responses.allSatisfy { $0.status == 200 && $0.httpVersion == 2 })
        #expect(Set(responses.compactMap { $0.headers.value(named: "x-peer-port") }).count == 1)
        #expect(client.workerThreadCount == 1)
        client.shutdown()
    }

    @Test("h2c with prior knowledge on loopback")
    func priorKnowledge() async throws {
        var request = cleartextRequest(try peer().url("/json", tls: false))
        request.prefersHTTP2PriorKnowledge = true
        let response = try await client.send(request)
        #expect(response.status == 200)
        #expect(response.httpVersion == 2)
        client.shutdown()
    }

    @Test("an oversized stream fails alone; the client keeps working")
    func oversizedStream() async throws {
        var big = try tlsRequest(try peer().url("/big"))
        big.maxResponseBytes = 1 << 20
        let error = await failure { () async throws(ClientError) in try await client.send(big) }
        #expect(error?.code == .responseTooLarge)

        big.truncatesLargeResponses = true
        let truncated = try await client.send(big)
        #expect(truncated.isBodyTruncated)
        #expect(truncated.body.count == 1 << 20)

        let after = try await client.send(try tlsRequest(try peer().url("/json")))
        #expect(after.status == 200)
        #expect(after.httpVersion == 2)
        client.shutdown()
    }
}
