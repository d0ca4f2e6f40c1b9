/// Sends one HTTP request and returns its response: the seam every outbound user (JWKS
/// download, webhooks, the authorization hook, APNs) depends on, so tests substitute a fake.
public protocol HTTPFetching: Sendable {
    /// Sends `request` and waits for the whole response.
    ///
    /// - Throws: `ClientError` for policy violations (before any network traffic), timeouts,
    ///   connection and TLS failures, oversized responses, cancellation of the calling task.
    ///   An HTTP error status is a response, not an error.
    func send(_ request: HTTPRequest) async throws(ClientError) -> HTTPResponse
}
