import Synchronization

/// Outbound HTTP(S) over libcurl: one worker thread per client drives every request through
/// one `curl_multi` handle, so connections are reused across requests (kept-alive HTTP/1.1,
/// multiplexed HTTP/2 when the server offers it through ALPN) and a thousand concurrent
/// requests cost no thread each.
///
/// Every request is checked by `URLPolicy` and the request rules before it reaches the worker:
/// `https` only (or `http` to loopback on request), TLS peer and host verification always on,
/// no redirects unless asked, no proxy from the environment, a whole-request timeout, a body
/// cap enforced while receiving, and no decompression.
///
/// Cancellation: cancelling the calling task removes its transfer from the multi handle and
/// the call throws `.cancelled`. A caller whose fetch must outlive the task that asked for it
/// (the JWKS cache: one reload shared by many requests, none of which may abort it) runs the
/// call in an unstructured `Task` and awaits that task's value.
public final class CurlHTTPClient: HTTPFetching, Sendable {
    /// The process-wide client for callers that need no separate connection pool.
    public static let shared = CurlHTTPClient()

    /// The `User-Agent` sent when a request does not set its own.
    public let userAgent: String
    private let engine: CurlEngine

    /// Creates a client and starts its worker thread.
    ///
    /// - Parameters:
    ///   - userAgent: the default `User-Agent`; must be a valid field value.
    ///   - connectionsStayBusy: tune for few long-lived connections that each carry many
    ///     concurrent requests (APNs over HTTP/2). Each connection is kept corked while the
    ///     worker writes and flushed just before it waits (`TCP_CORK`), so the frames of many
    ///     streams leave in full segments, and keeps its TLS record buffers instead of freeing
    ///     and reallocating them around every read and write. Each open connection then costs
    ///     two system calls per worker turn, which a pool of idle HTTP/1.1 connections
    ///     (the authorize hook, JWKS downloads) should not pay.
    ///   - connectionsPerHost: at most this many connections to one host (nil: no cap). A
    ///     request that finds them all busy (HTTP/1.1) or at the server's stream limit
    ///     (HTTP/2) waits for a free one instead of opening another. With 1, every request to
    ///     an HTTP/2 server shares one connection, also in the burst before the server's
    ///     SETTINGS frame, when libcurl would otherwise assume a limit of 100 streams. A waiting
    ///     request's timeout runs from its start but fires only once it has a connection; the
    ///     error then has `wasNeverSent`, so the caller knows it may send the request again.
    public init(userAgent: String = "app-native-gateway", connectionsStayBusy: Bool = false, connectionsPerHost: Int? = nil) {
        precondition(
            !userAgent.isEmpty && PreparedRequest.isFieldValue(userAgent),
            "userAgent must be a non-empty header field value"
        )
        precondition(connectionsPerHost.map { $0 >= 1 } ?? true, "connectionsPerHost must be at least 1")
        self.userAgent = userAgent
        engine = CurlEngine(connectionsStayBusy: connectionsStayBusy, connectionsPerHost: connectionsPerHost)
        engine.startWorker()
    }

    deinit {
        engine.shutDown()
    }

    /// Sends `request` and waits for the complete response.
    ///
    /// - Throws: `ClientError`: `.invalidURL`, `.insecureScheme` and `.invalidRequest` before any
    ///   network traffic; `.timeout`, `.connectFailed`, `.tlsFailed`, `.responseTooLarge`,
    ///   `.transport` from the exchange; `.cancelled` when the calling task is cancelled;
    ///   `.shutDown` after `shutdown()`. Any HTTP status is a response.
    public func send(_ request: HTTPRequest) async throws(ClientError) -> HTTPResponse {
        let prepared = try PreparedRequest(request, userAgent: userAgent)
        let engine = engine
        let id = engine.register()
        defer { engine.forget(id) }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CurlEngine.Continuation) in
                engine.submit(id, prepared, continuation)
            }
        } onCancel: {
            engine.cancel(id)
        }
        return try result.get()
    }

    /// Fails queued and in-flight requests with `.shutDown`, refuses new ones, and returns once
    /// the worker thread has stopped. Blocks the calling thread for at most one turn of the
    /// worker loop; safe to call more than once, from any thread. Idle connections are closed
    /// when the client is released (dropping the last reference also shuts it down).
    public func shutdown() {
        engine.shutDown()
    }

    /// Transfers currently on the multi handle (for tests and diagnostics).
    package var activeTransferCount: Int { engine.activeTransfers.load(ordering: .relaxed) }
    /// Transfers ever started; a request refused by the policy never counts.
    package var startedTransferCount: Int { engine.startedTransfers.load(ordering: .relaxed) }
    /// Worker threads this client ever started.
    package var workerThreadCount: Int { engine.workerThreadsStarted.load(ordering: .relaxed) }
}
