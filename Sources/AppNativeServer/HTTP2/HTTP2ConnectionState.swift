import AppNativeHTTP

/// The streams of one HTTP/2 connection as a value: each event the session reports goes in, the
/// one thing the connection must do comes out. No I/O, no exchange: tests drive it directly.
///
/// nghttp2 has already enforced the framing rules (stream states, windows, frame sizes, HPACK,
/// the limits set on it); this machine applies the request rules (`HTTP2RequestHead`) and the
/// body limit, and remembers which streams carry an exchange.
///
/// It also holds the stream limit itself (SETTINGS_MAX_CONCURRENT_STREAMS), in front of
/// nghttp2's: a stream counts from its head until both nghttp2 closed it and its exchange
/// ended, so streams a client resets while their exchanges still wind down (rapid reset) count
/// too, and a stream beyond the limit is refused (RST_STREAM REFUSED_STREAM) before any work.
struct HTTP2ConnectionState {
    /// What a stream the client opened is doing.
    enum Stream: Equatable {
        /// An exchange serves it; `bodyBytes`: request body bytes received so far.
        case exchange(bodyBytes: UInt64)
        /// An extended CONNECT (RFC 8441): its exchange runs, then its tunnel; DATA frames are
        /// the tunnel's bytes, never a request body (no body limit).
        case webSocket
        /// Answered by the connection itself (a refused request), or its exchange ended; what
        /// still arrives for it is dropped.
        case answered
        /// nghttp2 closed it (often the client's reset) while its exchange still runs: it still
        /// counts against the limit until the exchange ends.
        case abandoned
    }

    enum Action: Equatable {
        /// Hand a new exchange to the handler.
        case startExchange(stream: Int32, HTTPRequestHead, HTTPBodyFraming)
        /// Hand a new exchange for a WebSocket over HTTP/2 to the handler (its head is the
        /// HTTP/1.1 upgrade request, without the key the connection adds).
        case startWebSocket(stream: Int32, HTTPRequestHead)
        /// Bytes for the stream's tunnel (held by the stream until the tunnel opens).
        case tunnelData(stream: Int32, [UInt8])
        /// END_STREAM on a tunnel: the client is done sending (RFC 8441 §4: like a TCP FIN).
        case tunnelEnded(stream: Int32)
        /// Request body bytes for the stream's exchange.
        case deliverBody(stream: Int32, [UInt8])
        /// The request body is complete.
        case endBody(stream: Int32, trailers: HTTPHeaders?)
        /// Answer with an error status of the server's own (as HTTP/1.1 would); no exchange.
        case answer(stream: Int32, status: Int)
        /// The exchange's request body broke a limit: it ends, answered with `status` if its
        /// response has not started, else reset.
        case refuseBody(stream: Int32, status: Int)
        /// Reset the stream with this error code (a malformed request, RFC 9113 §8.1.1).
        case reset(stream: Int32, code: UInt32)
        /// Bytes nobody will read: give them back to the connection's window.
        case discard(stream: Int32, count: Int)
        /// The stream closed; its exchange, if still running, is aborted.
        case closed(stream: Int32, hadExchange: Bool)
    }

    private(set) var streams: [Int32: Stream] = [:]
    let limits: HTTPLimits
    /// The advertised SETTINGS_MAX_CONCURRENT_STREAMS.
    let maxStreams: Int

    init(limits: HTTPLimits, maxStreams: Int = 100) {
        self.limits = limits
        self.maxStreams = maxStreams
    }

    /// Streams with an exchange or a local answer in flight (the count the limit applies to).
    var openStreamCount: Int { streams.count }

    mutating func handle(_ event: HTTP2SessionEvent) -> Action? {
        switch event {
        case .requestHead(let stream, let list, let endsStream):
            guard streams[stream] == nil else { return .reset(stream: stream, code: HTTP2Session.protocolError) }
            // RFC 9113 §5.1.2: a stream beyond the limit is refused; the client may retry it.
            guard streams.count < maxStreams else { return .reset(stream: stream, code: HTTP2Session.refusedStream) }
            guard case .fields(let fields) = list else {
                streams[stream] = .answered
                return .answer(stream: stream, status: 431)
            }
            switch HTTP2RequestHead.make(fields, endsStream: endsStream, limits: limits) {
            case .success(.exchange(let head, let framing)):
                streams[stream] = .exchange(bodyBytes: 0)
                return .startExchange(stream: stream, head, framing)
            case .success(.webSocket(let head)):
                streams[stream] = .webSocket
                return .startWebSocket(stream: stream, head)
            case .failure(.answer(let status)):
                streams[stream] = .answered
                return .answer(stream: stream, status: status)
            case .failure(.malformed):
                return .reset(stream: stream, code: HTTP2Session.protocolError)
            }

        case .data(let stream, let bytes):
            switch streams[stream] {
            case .exchange(let received)?:
                let total = received + UInt64(bytes.count)
                if let max = limits.maxBodyBytes, total > max {
                    streams[stream] = .answered
                    return .refuseBody(stream: stream, status: 413)
                }
                streams[stream] = .exchange(bodyBytes: total)
                return .deliverBody(stream: stream, bytes)
            case .webSocket?:
                return .tunnelData(stream: stream, bytes)
            case .answered?, .abandoned?, nil:
                return .discard(stream: stream, count: bytes.count)
            }

        case .endOfStream(let stream):
            switch streams[stream] {
            case .exchange?: return .endBody(stream: stream, trailers: nil)
            case .webSocket?: return .tunnelEnded(stream: stream)
            case .answered?, .abandoned?, nil: return nil
            }

        case .trailers(let stream, _) where streams[stream] == .webSocket:
            // A tunnel ends with END_STREAM on DATA; a trailer section has no meaning there.
            return .reset(stream: stream, code: HTTP2Session.protocolError)

        case .trailers(let stream, let list):
            guard case .exchange? = streams[stream] else { return nil }
            guard case .fields(let fields) = list else {
                streams[stream] = .answered
                return .refuseBody(stream: stream, status: 431)
            }
            var trailers = HTTPHeaders()
            for field in fields {
                // RFC 9113 §8.1: no pseudo-header fields in a trailer section.
                guard !field.isPseudoHeader else { return .reset(stream: stream, code: HTTP2Session.protocolError) }
                guard let name = String(validating: field.name, as: UTF8.self) else {
                    return .reset(stream: stream, code: HTTP2Session.protocolError)
                }
                // unsafe: the field's bytes are borrowed for the call; `add` copies them.
                unsafe field.value.withUnsafeBufferPointer { unsafe trailers.add(name: name, valueBytes: $0) }
            }
            return .endBody(stream: stream, trailers: trailers)

        case .closed(let stream, _):
            switch streams[stream] {
            case .exchange?, .webSocket?:
                // Counted until the connection reports the exchange ended (`exchangeEnded`).
                streams[stream] = .abandoned
                return .closed(stream: stream, hadExchange: true)
            case .answered?:
                streams[stream] = nil
                return .closed(stream: stream, hadExchange: false)
            case .abandoned?, nil:
                return nil
            }
        }
    }

    /// The exchange of `stream` ended (answered, aborted, or become a tunnel that ended): what
    /// still arrives for the stream is dropped, and a stream nghttp2 already closed stops counting.
    mutating func exchangeEnded(stream: Int32) {
        switch streams[stream] {
        case .abandoned?: streams[stream] = nil
        case .exchange?, .webSocket?: streams[stream] = .answered
        case .answered?, nil: break
        }
    }
}
