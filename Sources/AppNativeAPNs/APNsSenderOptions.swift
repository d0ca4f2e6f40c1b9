/// Transport settings of an `APNsSender`.
public struct APNsSenderOptions: Sendable {
    /// The limit on one attempt (connect, TLS, request and answer). A stalled stream fails
    /// with `.timeout` after this.
    public var requestTimeout: Duration
    /// The limit on establishing a connection.
    public var connectTimeout: Duration
    /// Retries of 429/500/503 and lost connections.
    public var retryPolicy: APNsRetryPolicy
    /// The most pushes of one batch in flight at once (streams on the shared connection).
    public var maxConcurrentPushes: Int

    /// Creates options.
    public init(
        requestTimeout: Duration = .seconds(10),
        connectTimeout: Duration = .seconds(5),
        retryPolicy: APNsRetryPolicy = APNsRetryPolicy(),
        maxConcurrentPushes: Int = 100
    ) {
        precondition(requestTimeout > .zero && connectTimeout > .zero, "timeouts must be positive")
        precondition(maxConcurrentPushes >= 1, "maxConcurrentPushes must be at least 1")
        self.requestTimeout = requestTimeout
        self.connectTimeout = connectTimeout
        self.retryPolicy = retryPolicy
        self.maxConcurrentPushes = maxConcurrentPushes
    }
}
