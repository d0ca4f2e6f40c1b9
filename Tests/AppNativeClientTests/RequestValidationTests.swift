import AppNativeClient
import Testing

/// Requests refused before they reach the worker: no network is involved, so the URLs point
/// at a port nothing is expected to listen on, and `startedTransferCount` proves no transfer began.
@Suite("Request validation")
struct RequestValidationTests {
    let client = CurlHTTPClient()
    let url = "http://127.0.0.1:9/never"

    private func refusal(_ request: HTTPRequest) async -> ClientError? {
        await failure { () async throws(ClientError) in try await client.send(request) }
    }

    @Test(
        "header values that could start a new line are refused without echoing them",
        arguments: [
            "a\r\nX-Injected: secret-value", "a\nsecret-value", "a\rsecret-value", "a\u{0}secret-value",
            "a\u{7f}secret-value",
        ]
    )
    func headerInjection(value: String) async {
        var request = cleartextRequest(url)
        request.headers = [HTTPHeaderField(name: "X-Test", value: value)]
        let error = await refusal(request)
        #expect(error?.code == .invalidRequest)
        #expect(error?.description.contains("secret-value") == false)
        #expect(client.startedTransferCount == 0)
        client.shutdown()
    }

    @Test("header names must be tokens", arguments: ["", "X Test", "X-Test:", "X\r\nY", "Ünicode", "(comment)"])
    func headerNames(name: String) async {
        var request = cleartextRequest(url)
        request.headers = [HTTPHeaderField(name: name, value: "v")]
        #expect(await refusal(request)?.code == .invalidRequest)
        client.shutdown()
    }

    @Test(
        "fields the engine owns are refused",
        arguments: [
            "Host", "content-length", "Transfer-Encoding", "Connection", "Keep-Alive", "TE", "Upgrade",
            "Proxy-Connection",
        ]
    )
    func engineOwnedFields(name: String) async {
        var request = cleartextRequest(url)
        request.headers = [HTTPHeaderField(name: name, value: "x")]
        #expect(await refusal(request)?.code == .invalidRequest)
        client.shutdown()
    }

    @Test("methods must be tokens", arguments: ["", "GET /", "G\r\nET", "GÉT"])
    func methods(method: String) async {
        #expect(await refusal(cleartextRequest(url, method: method))?.code == .invalidRequest)
        client.shutdown()
    }

    @Test("limits and timeouts must make sense")
    func limits() async {
        var request = cleartextRequest(url)
        request.timeout = .zero
        #expect(await refusal(request)?.code == .invalidRequest)

        request = cleartextRequest(url)
        request.connectTimeout = .milliseconds(-1)
        #expect(await refusal(request)?.code == .invalidRequest)

        request = cleartextRequest(url)
        request.maxResponseBytes = -1
        #expect(await refusal(request)?.code == .invalidRequest)

        request = cleartextRequest(url)
        request.maxResponseHeaderBytes = 0
        #expect(await refusal(request)?.code == .invalidRequest)

        request = cleartextRequest(url, method: "HEAD")
        request.body = [1]
        #expect(await refusal(request)?.code == .invalidRequest)

        request = cleartextRequest(url)
        request.caFile = ""
        #expect(await refusal(request)?.code == .invalidRequest)

        #expect(client.startedTransferCount == 0)
        client.shutdown()
    }

    @Test("proxy URLs are checked", arguments: ["socks5://127.0.0.1:1080", "not a url", "http://"])
    func proxies(proxy: String) async {
        var request = cleartextRequest(url)
        request.proxyURL = proxy
        #expect(await refusal(request)?.code == .invalidURL)
        client.shutdown()
    }

    @Test("https is required by default")
    func httpsByDefault() async {
        #expect(await refusal(HTTPRequest(url: url))?.code == .insecureScheme)
        client.shutdown()
    }

    @Test("a header field prints without its value")
    func headerFieldDescription() {
        let field = HTTPHeaderField(name: "Authorization", value: "Bearer secret-token")
        #expect(!"\(field)".contains("secret-token"))
        #expect("\(field)".contains("Authorization"))
    }

    @Test("header lookup ignores case and keeps order")
    func headerLookup() {
        let headers = [
            HTTPHeaderField(name: "Set-Cookie", value: "a=1"),
            HTTPHeaderField(name: "content-type", value: "application/json"),
            HTTPHeaderField(name: "set-cookie", value: "b=2"),
        ]
        #expect(headers.value(named: "Content-Type") == "application/json")
        #expect(headers.values(named: "SET-COOKIE") == ["a=1", "b=2"])
        #expect(headers.value(named: "missing") == nil)
    }

    @Test("errors compare by code only and print code and reason")
    func errorEquality() {
        let one = ClientError(.timeout, reason: "one")
        let two = ClientError(.timeout, reason: "two")
        #expect(one == two)
        #expect(one != ClientError(.transport, reason: "one"))
        #expect(one.description.hasPrefix("timeout: one"))
        #expect(ClientError.Code.responseTooLarge.description == "response_too_large")
    }
}
