import AppNativeHTTP

/// The streams of one HTTP/2 connection as a value: each event the session reports goes in, the
/// one thing the connection must do comes out. No I/O, no exchange: tests drive it directly.
///
/// nghttp2 has already enforced the framing rules (stream states, windows, frame sizes, HPACK,
/// the limits set on it); this machine applies the request rules (`HTTP2RequestHead`) and the
/// body limit, and remembers which streams carry an exchange.
struct HTTP2ConnectionState {
    /// What a stream the client opened is doing.
    enum Stream: Equatable {
        /// An exchange serves it; `bodyBytes`: request body bytes received so far.
        case exchange(bodyBytes: UInt64)
        /// Answered by the connection itself (a refused request); its body is dropped.
        case answered
    }

    enum Action: Equatable {
        /// Hand a new exchange to the handler.
        case startExchange(stream: Int32, HTTPRequestHead, HTTPBodyFraming)
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

    init(limits: HTTPLimits) {
        self.limits = limits
    }

    /// Streams with an exchange or a local answer in flight.
    var openStreamCount: Int { streams.count }

    mutating func handle(_ event: HTTP2SessionEvent) -> Action? {
        switch event {
        case .requestHead(let stream, let list, let endsStream):
            guard streams[stream] == nil else { return .reset(stream: stream, code: HTTP2Session.protocolError) }
            guard case .fields(let fields) = list else {
                streams[stream] = .answered
                return .answer(stream: stream, status: 431)
            }
            switch HTTP2RequestHead.make(fields, endsStream: endsStream, limits: limits) {
            case .success(let (head, framing)):
                streams[stream] = .exchange(bodyBytes: 0)
                return .startExchange(stream: stream, head, framing)
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
            case .answered?, nil:
                return .discard(stream: stream, count: bytes.count)
            }

        case .endOfStream(let stream):
            guard case .exchange? = streams[stream] else { return nil }
            return .endBody(stream: stream, trailers: nil)

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
                field.value.withUnsafeBufferPointer { trailers.add(name: name, valueBytes: $0) }
            }
            return .endBody(stream: stream, trailers: trailers)

        case .closed(let stream, _):
            guard let ended = streams.removeValue(forKey: stream) else { return nil }
            if case .exchange = ended { return .closed(stream: stream, hadExchange: true) }
            return .closed(stream: stream, hadExchange: false)
        }
    }
}
