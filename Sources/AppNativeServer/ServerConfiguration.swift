public import AppNativeHTTP

/// Limits and timeouts of the HTTP server (each has an environment variable in the gateway).
public struct ServerConfiguration: Sendable {
    public var listenAddress: SocketAddress
    /// Event loops, one thread and one `SO_REUSEPORT` listener each.
    public var eventLoops: Int
    public var limits: HTTPLimits
    /// From the first byte of a request head until the head is complete (answered 408).
    public var headerTimeout: Duration = .seconds(10)
    /// Longest pause between two pieces of a request body (answered 408).
    public var bodyIdleTimeout: Duration = .seconds(60)
    /// How long an idle keep-alive connection is kept.
    public var keepAliveTimeout: Duration = .seconds(75)
    /// Longest time queued response bytes may wait for a client that does not read.
    public var writeTimeout: Duration = .seconds(60)
    /// Connections accepted across all loops; more are closed at once.
    public var maxConnections: Int = 10_000
    /// TLS termination; `nil` serves plain HTTP.
    public var tls: TLSServerContext?
    /// Queued response bytes above which producers are asked to pause (backpressure).
    public var writeHighWatermark: Int = 256 * 1024
    /// HTTP/2 toward clients: offered by ALPN on TLS (`TLSServerContext(offersHTTP2:)`) and
    /// recognised by its preface on cleartext. nil: HTTP/1.1 only.
    public var http2: HTTP2Settings?

    public init(listenAddress: SocketAddress, eventLoops: Int, limits: HTTPLimits = HTTPLimits()) {
        self.listenAddress = listenAddress
        self.eventLoops = eventLoops
        self.limits = limits
    }
}
