/// HTTP/2 toward clients (RFC 9113): what is advertised and the limits the server holds a
/// client to. `ServerConfiguration.http2` nil serves HTTP/1.1 only.
public struct HTTP2Settings: Sendable, Hashable {
    /// SETTINGS_MAX_CONCURRENT_STREAMS: streams a client may have open at once; a stream beyond
    /// is refused (RST_STREAM REFUSED_STREAM).
    public var maxConcurrentStreams: Int = 100
    /// SETTINGS_INITIAL_WINDOW_SIZE: request body bytes a stream may send before the handler
    /// consumed them, so a body nobody reads yet is buffered up to this per stream.
    public var streamWindowBytes: Int = 65_535
    /// The connection's receive window: request body bytes all streams together may have
    /// outstanding.
    public var connectionWindowBytes: Int = 1 << 20
    /// Response bytes buffered per stream before its producer is asked to pause.
    public var streamBufferBytes: Int = 64 * 1024
    /// Response bytes buffered for all streams of a connection before producers are asked to pause.
    public var connectionBufferBytes: Int = 512 * 1024
    /// Entries one SETTINGS frame may carry (a SETTINGS flood ends the connection).
    public var maxSettingsEntries: Int = 32
    /// CONTINUATION frames one header block may take (the 2024 CONTINUATION flood).
    public var maxContinuations: Int = 8
    /// Streams a client may reset: a burst, then this many per second (rapid reset,
    /// CVE-2023-44487); beyond it the connection ends with GOAWAY.
    public var resetBurst: Int = 1000
    /// The rate at which the reset allowance refills after the burst.
    public var resetsPerSecond: Int = 33
    /// Empty DATA, HEADERS and CONTINUATION frames without END_STREAM one connection may send
    /// (clients send none or a few; a flood of them ends the connection with ENHANCE_YOUR_CALM).
    public var maxEmptyFrames: Int = 1000
    /// SETTINGS and PING acknowledgements the server may have queued for a client that does not
    /// read them (a SETTINGS or PING flood ends the connection).
    public var maxQueuedAcknowledgements: Int = 1000

    /// The defaults: 100 streams, 64 KiB stream windows, a 1 MiB connection window, 64 KiB of
    /// response buffering per stream and 512 KiB per connection.
    public init() {}
}
