public import AppNativeHTTP

/// The HTTP/2 connection's input path without a socket, for the fuzz harness (Tests/Fuzz):
/// received bytes go through the nghttp2 session with the gateway's limits and callbacks, and the
/// events it reports through `HTTP2ConnectionState` (and so `HTTP2RequestHead`), as
/// `HTTP2Connection` does; frames the session produces are taken and dropped, so it goes on as
/// with a client that reads. Exchanges are not started: what they would be is reported.
@_spi(Fuzzing)
public final class HTTP2InputDriver {
    private let session: HTTP2Session
    private var state: HTTP2ConnectionState
    private var output = OutgoingBytes()
    private let settings: HTTP2Settings

    /// What the input caused so far.
    public struct Tally: Sendable {
        /// Request heads that became exchanges, with what the exchange would see.
        public var requests: [HTTPRequestHead] = []
        public var bodyBytes = 0
        public var answers = 0
        public var resets = 0
        /// The session failed (a connection error): later input is ignored.
        public var failed = false
    }

    public private(set) var tally = Tally()

    public init?(limits: HTTPLimits) {
        settings = HTTP2Settings()
        guard let session = HTTP2Session(settings: settings, limits: limits) else { return nil }
        self.session = session
        state = HTTP2ConnectionState(limits: limits)
    }

    /// Streams with an exchange or an answer of the connection's own in flight.
    public var openStreams: Int { state.openStreamCount }

    /// The streams nghttp2 may admit at once.
    public var maxConcurrentStreams: Int { settings.maxConcurrentStreams }

    /// Feeds `bytes` as one read; returns false once the connection failed.
    public func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !tally.failed else { return false }
        // unsafe: `bytes` is the caller's borrowed buffer, read by the session during this call only.
        let result = unsafe session.receive(bytes)
        handleEvents()
        if case .failure = result {
            session.terminate(code: HTTP2Session.enhanceYourCalm)
            tally.failed = true
        }
        drainOutput()
        return !tally.failed
    }

    private func handleEvents() {
        while !session.inbox.events.isEmpty {
            let events = session.inbox.events
            session.inbox.events = []
            for event in events {
                guard let action = state.handle(event) else { continue }
                switch action {
                case .startExchange(_, let head, _), .startWebSocket(_, let head):
                    tally.requests.append(head)
                case .tunnelData(let id, let bytes):
                    tally.bodyBytes += bytes.count
                    session.consume(stream: id, count: bytes.count)
                case .tunnelEnded:
                    break
                case .deliverBody(let id, let bytes):
                    tally.bodyBytes += bytes.count
                    session.consume(stream: id, count: bytes.count)
                case .endBody:
                    break
                case .answer(let id, let status), .refuseBody(let id, let status):
                    tally.answers += 1
                    _ = session.submitResponse(stream: id, status: status, headers: HTTPHeaders(), hasBody: false)
                case .reset(let id, let code):
                    tally.resets += 1
                    session.reset(stream: id, code: code)
                case .discard(let id, let count):
                    session.consume(stream: id, count: count)
                case .closed:
                    break
                }
            }
        }
    }

    private func drainOutput() {
        // Bounded: each round takes what nghttp2 has queued, at most 1 MiB.
        for _ in 0..<64 where session.wantsWrite {
            guard case .success = session.produce(into: &output, upTo: 1 << 20) else {
                tally.failed = true
                return
            }
            output = OutgoingBytes()
            handleEvents()
        }
    }
}

@available(*, unavailable, message: "single-threaded")
extension HTTP2InputDriver: Sendable {}
