import AppNativeHTTP

/// What carries an exchange to its client: an HTTP/1.1 connection (one exchange at a time) or
/// one stream of an HTTP/2 connection. `HTTPExchange` speaks only to this, so both protocols
/// serve a request through the same exchange and the same handler. Loop-owned.
protocol ExchangeCarrier: AnyObject {
    /// Whether more response bytes may be queued now (backpressure toward the producer).
    var isBelowHighWatermark: Bool { get }
    /// The handler asked for the request body.
    func bodyRequested(by exchange: HTTPExchange)
    /// The handler resumed a paused request body.
    func bodyResumed(by exchange: HTTPExchange)
    /// A final response head is about to be written (the point `retractResponse` returns to).
    func beginResponse()
    func writeHead(_ head: HTTPResponseHead)
    /// Takes back the current response if none of its bytes has left.
    func retractResponse() -> Bool
    /// Body bytes in the response's own framing (fixed length or until close).
    func write(_ bytes: ArraySlice<UInt8>)
    /// Body bytes of a response whose length is not known in advance.
    func writeChunk(_ bytes: ArraySlice<UInt8>)
    /// The end of a response whose length was not known in advance, with its trailers.
    func writeLastChunk(trailers: HTTPHeaders?)
    /// The current response cannot end cleanly (short, or delimited by the close).
    func closeAfterResponse()
    /// Adds the fields that manage the connection (HTTP/1.1 only).
    func prepareConnectionHeader(_ head: inout HTTPResponseHead, exchange: HTTPExchange)
    /// The response ended (`finish`).
    func exchangeFinished(_ exchange: HTTPExchange)
    /// Turns the connection into a byte tunnel after a 101; nil where there is none (HTTP/2).
    func startTunnel(for exchange: HTTPExchange, delegate: any TunnelDelegate) -> Tunnel?
    /// Ends the exchange abruptly: HTTP/1.1 closes the connection, HTTP/2 resets the stream.
    func abandon(_ exchange: HTTPExchange)
}
