public import AppNativeClient

/// Downloads a JWKS document. Injected into `JWKSCache` so tests count and stall downloads.
public protocol JWKSFetching: Sendable {
    /// The document's bytes; throws for any transport failure, non-2xx status or oversized body.
    func fetchDocument() async throws -> [UInt8]
}

/// The production fetcher: `GET` over libcurl with the rules of contract/auth.md §6.
///
/// https only (plain http is accepted for a loopback address, for tests and sidecars),
/// `Accept: application/json`, a `User-Agent`, redirects never followed (a 3xx is a failure),
/// at most 1,000,000 bytes, no proxy from the environment.
public struct HTTPJWKSFetcher: JWKSFetching {
    public let url: String
    private let client: any HTTPFetching
    private let caFile: String?
    private let socketTimeout: Duration

    public init(
        url: String,
        client: any HTTPFetching = CurlHTTPClient.shared,
        caFile: String? = nil,
        socketTimeout: Duration = .seconds(5)
    ) throws(ClientError) {
        try URLPolicy.validateOutbound(url: url, allowsCleartextOnLoopback: true)
        self.url = url
        self.client = client
        self.caFile = caFile
        self.socketTimeout = socketTimeout
    }

    public struct UnexpectedStatus: Error, CustomStringConvertible {
        public let status: Int
        public var description: String { "JWKS endpoint answered HTTP \(status)" }
    }

    public func fetchDocument() async throws -> [UInt8] {
        let request = HTTPRequest.identityServiceJSON(
            url: url, timeout: socketTimeout * 2, connectTimeout: socketTimeout, maxResponseBytes: JSONWebKeySet.maxDocumentBytes,
            caFile: caFile)
        let response = try await client.send(request)
        guard (200..<300).contains(response.status) else { throw UnexpectedStatus(status: response.status) }
        return response.body
    }
}
