import AppNativeHTTP
internal import CAppNativeNGHTTP2

/// libnghttp2's server session for one client connection, without I/O: bytes received go in
/// through `receive`, bytes to send come out of `produce`, and both run on the connection's loop.
///
/// The C boundary is here and only here. nghttp2 calls back during `receive` and `produce`; the
/// callbacks touch nothing but the `HTTP2CallbackInbox` their user data points to: they append
/// events, collect header fields (bounded by the header limits), and copy response bytes the
/// connection queued earlier. They never call into an exchange or the connection, so no Swift
/// state is re-entered; the connection's state machine handles the events after the call.
@safe
final class HTTP2Session {
    // @safe: the nghttp2 session is created in init, never leaves this class, and is deleted once in
    // deinit. Every `unsafe` call in this file passes that live session, buffers borrowed (with their
    // lengths) from `withUnsafeBytes`/`withUnsafeMutableBytes` for the duration of the call, or, in
    // the callbacks, pointers nghttp2 hands over valid for that callback only (copied before it
    // returns) and the user data that points to `inbox`, which the session holds for its whole life.
    private let session: OpaquePointer
    let inbox: HTTP2CallbackInbox

    /// A fatal protocol or resource error: the connection ends (nghttp2 has queued its GOAWAY
    /// when it could).
    struct Failure: Error, Hashable {
        let code: Int32
    }

    init?(settings: HTTP2Settings, limits: HTTPLimits) {
        inbox = HTTP2CallbackInbox(
            maxHeaderBytes: limits.maxHeaderBytes, maxHeaderCount: limits.maxHeaderCount, maxEmptyFrames: settings.maxEmptyFrames)
        var callbacksPointer: OpaquePointer?
        guard unsafe nghttp2_session_callbacks_new(&callbacksPointer) == 0, let callbacks = unsafe callbacksPointer else { return nil }
        defer { unsafe nghttp2_session_callbacks_del(callbacks) }
        unsafe HTTP2Callbacks.install(on: callbacks)

        var optionPointer: OpaquePointer?
        guard unsafe nghttp2_option_new(&optionPointer) == 0, let option = unsafe optionPointer else { return nil }
        defer { unsafe nghttp2_option_del(option) }
        // Window updates follow what handlers consume, not what arrived: a body nobody reads
        // stops at the window (bounded buffering, backpressure to the client).
        unsafe nghttp2_option_set_no_auto_window_update(option, 1)
        unsafe nghttp2_option_set_max_settings(option, settings.maxSettingsEntries)
        unsafe nghttp2_option_set_max_continuations(option, settings.maxContinuations)
        unsafe nghttp2_option_set_stream_reset_rate_limit(option, UInt64(settings.resetBurst), UInt64(settings.resetsPerSecond))
        // Queued SETTINGS and PING acknowledgements a client that does not read may cause.
        unsafe nghttp2_option_set_max_outbound_ack(option, settings.maxQueuedAcknowledgements)
        // Responses are encoded with a small dynamic table: no memory grows with the client's.
        unsafe nghttp2_option_set_max_deflate_dynamic_table_size(option, 4096)

        var sessionPointer: OpaquePointer?
        let userData = unsafe Unmanaged.passUnretained(inbox).toOpaque()
        guard unsafe nghttp2_session_server_new2(&sessionPointer, callbacks, userData, option) == 0, let session = unsafe sessionPointer else {
            return nil
        }
        unsafe self.session = unsafe session

        var entries = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: UInt32(settings.maxConcurrentStreams)),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: UInt32(settings.streamWindowBytes)),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue), value: UInt32(limits.maxHeaderBytes)),
            // RFC 8441: WebSockets over HTTP/2 (extended CONNECT with `:protocol`).
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL.rawValue), value: 1),
        ]
        _ = unsafe nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count)
        if settings.connectionWindowBytes > 65_535 {
            _ = unsafe nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, Int32(settings.connectionWindowBytes))
        }
    }

    deinit { unsafe nghttp2_session_del(session) }

    // MARK: Input

    /// Processes received bytes; the events they produced are in `inbox.events`.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Result<Void, Failure> {
        guard let base = bytes.baseAddress, unsafe !bytes.isEmpty else { return .success(()) }
        let result = unsafe nghttp2_session_mem_recv(session, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        if result < 0 { return .failure(Failure(code: Int32(truncatingIfNeeded: result))) }
        return .success(())
    }

    /// Gives `count` body bytes of `stream` back to the client's windows (the handler took them).
    func consume(stream: Int32, count: Int) {
        guard count > 0 else { return }
        if unsafe nghttp2_session_consume(session, stream, count) != 0 {
            // The stream is gone: the connection's window still counts the bytes.
            _ = unsafe nghttp2_session_consume_connection(session, count)
        }
    }

    // MARK: Output

    /// Whether nghttp2 has frames to send.
    var wantsWrite: Bool { unsafe nghttp2_session_want_write(session) != 0 }

    /// Whether the session is still open in both directions (no GOAWAY exchanged to the end).
    var wantsRead: Bool { unsafe nghttp2_session_want_read(session) != 0 }

    /// Appends serialised frames to `output` until nghttp2 has none or `limit` bytes are pending.
    func produce(into output: inout OutgoingBytes, upTo limit: Int) -> Result<Void, Failure> {
        while output.pendingCount < limit {
            var data: UnsafePointer<UInt8>?
            let count = unsafe nghttp2_session_mem_send(session, &data)
            if count < 0 { return .failure(Failure(code: Int32(truncatingIfNeeded: count))) }
            guard count > 0, let data = unsafe data else { return .success(()) }
            unsafe output.append(UnsafeBufferPointer(start: data, count: count))
        }
        return .success(())
    }

    /// Queues a response head. `hasBody`: DATA frames follow from the stream's outbound buffer
    /// (otherwise the HEADERS frame ends the stream).
    func submitResponse(stream: Int32, status: Int, headers: HTTPHeaders, hasBody: Bool) -> Bool {
        var fields = [HTTP2Field(":status", String(status))]
        fields.reserveCapacity(headers.count + 1)
        for field in headers where !Self.isConnectionSpecific(field.name) {
            fields.append(HTTP2Field(field.name.lowercased(), field.value))
        }
        if hasBody { inbox.outbound[stream] = HTTP2OutboundData() }
        return unsafe Self.withNameValues(fields) { nva, count in
            if hasBody {
                var provider = unsafe HTTP2Callbacks.dataProvider()
                return unsafe nghttp2_submit_response(session, stream, nva, count, &provider) == 0
            }
            return unsafe nghttp2_submit_response(session, stream, nva, count, nil) == 0
        }
    }

    /// Queues an interim (1xx) response head; the final one follows with `submitResponse`.
    func submitInformational(stream: Int32, status: Int, headers: HTTPHeaders) -> Bool {
        var fields = [HTTP2Field(":status", String(status))]
        for field in headers where !Self.isConnectionSpecific(field.name) {
            fields.append(HTTP2Field(field.name.lowercased(), field.value))
        }
        return unsafe Self.withNameValues(fields) { nva, count in
            unsafe nghttp2_submit_headers(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, nil, nva, count, nil) >= 0
        }
    }

    /// Queues response body bytes of `stream` (after `submitResponse(hasBody: true)`).
    func appendData(stream: Int32, _ bytes: ArraySlice<UInt8>) {
        guard !bytes.isEmpty, inbox.outbound[stream] != nil else { return }
        inbox.outbound[stream]?.append(bytes)
        _ = unsafe nghttp2_session_resume_data(session, stream)
    }

    /// Ends the response body of `stream`, with trailers when there are any.
    func endData(stream: Int32, trailers: HTTPHeaders?) {
        guard inbox.outbound[stream] != nil else { return }
        var fields: [HTTP2Field] = []
        for field in trailers ?? HTTPHeaders() where !Self.isConnectionSpecific(field.name) {
            fields.append(HTTP2Field(field.name.lowercased(), field.value))
        }
        inbox.outbound[stream]?.ending = .ended(trailers: fields)
        _ = unsafe nghttp2_session_resume_data(session, stream)
    }

    /// Response bytes of `stream` queued and not yet framed.
    func pendingBytes(stream: Int32) -> Int { inbox.outbound[stream]?.pendingCount ?? 0 }

    /// Response bytes of `stream` framed so far (the client's window let them go).
    func framedBytes(stream: Int32) -> UInt64 { inbox.outbound[stream]?.framedCount ?? 0 }

    /// Response bytes of every stream queued and not yet framed.
    var pendingBytes: Int { inbox.pendingOutboundBytes }

    /// Resets a stream (RST_STREAM with `code`).
    func reset(stream: Int32, code: UInt32) {
        inbox.outbound[stream] = nil
        _ = unsafe nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, code)
    }

    /// Starts a graceful shutdown: GOAWAY naming the last stream the server will process.
    func goAway() {
        let last = unsafe nghttp2_session_get_last_proc_stream_id(session)
        _ = unsafe nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, UInt32(NGHTTP2_NO_ERROR.rawValue), nil, 0)
    }

    /// Ends the session at once with a connection error (GOAWAY with `code`).
    func terminate(code: UInt32) {
        _ = unsafe nghttp2_session_terminate_session(session, code)
    }

    static let noError = UInt32(NGHTTP2_NO_ERROR.rawValue)
    static let protocolError = UInt32(NGHTTP2_PROTOCOL_ERROR.rawValue)
    static let internalError = UInt32(NGHTTP2_INTERNAL_ERROR.rawValue)
    static let refusedStream = UInt32(NGHTTP2_REFUSED_STREAM.rawValue)
    static let cancel = UInt32(NGHTTP2_CANCEL.rawValue)
    static let enhanceYourCalm = UInt32(NGHTTP2_ENHANCE_YOUR_CALM.rawValue)

    private static func isConnectionSpecific(_ name: String) -> Bool {
        HTTPHeaders.nameEquals(name, "Connection") || HTTPHeaders.nameEquals(name, "Keep-Alive")
            || HTTPHeaders.nameEquals(name, "Proxy-Connection") || HTTPHeaders.nameEquals(name, "Transfer-Encoding")
            || HTTPHeaders.nameEquals(name, "Upgrade")
    }

    /// Calls `body` with nghttp2 name-value pairs viewing `fields` (nghttp2 copies them).
    fileprivate static func withNameValues<R>(_ fields: [HTTP2Field], _ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        var storage: [UInt8] = []
        var ranges: [(name: Range<Int>, value: Range<Int>)] = []
        ranges.reserveCapacity(fields.count)
        for field in fields {
            let nameStart = storage.count
            storage += field.name
            let valueStart = storage.count
            storage += field.value
            ranges.append((nameStart..<valueStart, valueStart..<storage.count))
        }
        // One spare byte: a pointer into an empty array's buffer is still valid to pass.
        storage.append(0)
        return unsafe storage.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            let nameValues = unsafe ranges.map { range in
                unsafe nghttp2_nv(
                    name: base + range.name.lowerBound, value: base + range.value.lowerBound,
                    namelen: range.name.count, valuelen: range.value.count, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            return unsafe nameValues.withUnsafeBufferPointer { unsafe body($0.baseAddress!, $0.count) }
        }
    }
}

/// Response bytes of one stream waiting for its window; read by the data callback.
struct HTTP2OutboundData {
    enum Ending: Equatable {
        case open
        case ended(trailers: [HTTP2Field])
    }

    private(set) var bytes: [UInt8] = []
    private(set) var start = 0
    var ending = Ending.open
    /// Bytes taken into DATA frames so far: the progress the write timeout watches.
    private(set) var framedCount: UInt64 = 0

    var pendingCount: Int { bytes.count - start }

    mutating func append(_ slice: ArraySlice<UInt8>) {
        if start == bytes.count {
            bytes.removeAll(keepingCapacity: true)
            start = 0
        }
        bytes.append(contentsOf: slice)
    }

    /// Copies up to `count` bytes into `destination`; returns how many.
    mutating func take(into destination: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        let taken = min(count, pendingCount)
        // Nothing to copy: no buffer is borrowed, so an empty array's missing base address is
        // never unwrapped.
        guard taken > 0 else { return 0 }
        unsafe bytes.withUnsafeBufferPointer { source in
            unsafe destination.update(from: source.baseAddress! + start, count: taken)
        }
        start += taken
        framedCount += UInt64(taken)
        if start == bytes.count {
            bytes.removeAll(keepingCapacity: bytes.capacity <= 64 * 1024)
            start = 0
        }
        return taken
    }
}

/// The state nghttp2's callbacks may touch (see `HTTP2Session`). Loop-owned.
final class HTTP2CallbackInbox {
    /// Events of the current `receive`, in order; the connection takes them after the call.
    var events: [HTTP2SessionEvent] = []
    /// Header blocks being decoded, by stream: at most the streams nghttp2 admits.
    var headerBlocks: [Int32: HeaderBlock] = [:]
    /// Response bytes by stream.
    var outbound: [Int32: HTTP2OutboundData] = [:]
    let maxHeaderBytes: Int
    let maxHeaderCount: Int
    /// Request bodies with a `content-length`, by stream (at most the streams nghttp2 admits).
    var declaredBodies: [Int32: DeclaredBody] = [:]
    /// Empty frames that ended no stream, so far (see `maxEmptyFrames`).
    var emptyFrames = 0
    /// The highest stream id the client opened a stream with.
    var highestClientStream: Int32 = 0
    /// The last stream id of the GOAWAY sent for a stream id going backwards (`Int32.max`
    /// until then): no stream above it becomes a request.
    var lastAdmittedStream = Int32.max

    struct HeaderBlock {
        var fields: [HTTP2Field] = []
        /// Bytes as RFC 9113 §6.5.2 counts them: name, value and 32 per field.
        var size = 0
        var isTooLarge = false
        let isTrailer: Bool
    }

    /// Empty DATA, HEADERS and CONTINUATION frames without END_STREAM the connection may send
    /// (`HTTP2Settings.maxEmptyFrames`).
    let maxEmptyFrames: Int

    init(maxHeaderBytes: Int, maxHeaderCount: Int, maxEmptyFrames: Int) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxEmptyFrames = maxEmptyFrames
    }

    /// A request body's declared length, the bytes received, and the last chunk, held until
    /// END_STREAM shows no byte follows (at most one chunk: nghttp2 resets a stream whose DATA
    /// goes beyond the declared length before handing it over).
    struct DeclaredBody {
        let declared: Int
        var received = 0
        var held: [UInt8] = []
    }

    static let contentLength = Array("content-length".utf8)

    /// Hands over the held end of a body whose stream ends here.
    func releaseHeldBody(of stream: Int32) {
        guard let body = declaredBodies.removeValue(forKey: stream), !body.held.isEmpty else { return }
        events.append(.data(stream: stream, body.held))
    }

    var pendingOutboundBytes: Int { outbound.values.reduce(0) { $0 + $1.pendingCount } }

    /// A header block that decodes to this many times the limit is an HPACK bomb: the connection
    /// ends instead of spending more time decoding it.
    static let bombFactor = 4
}

@available(*, unavailable, message: "loop-owned")
extension HTTP2Session: Sendable {}

@available(*, unavailable, message: "loop-owned")
extension HTTP2CallbackInbox: Sendable {}

/// The C callbacks (see `HTTP2Session` for what they may touch). Each recovers the inbox from
/// the user data the session was made with; the inbox outlives the session. The closures handed
/// to nghttp2 capture nothing and only forward to these functions.
private enum HTTP2Callbacks {
    static func inbox(_ userData: UnsafeMutableRawPointer?) -> HTTP2CallbackInbox {
        unsafe Unmanaged<HTTP2CallbackInbox>.fromOpaque(userData!).takeUnretainedValue()
    }

    static let temporalFailure = Int32(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
    static let callbackFailure = Int32(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue)
    static let headersType = UInt8(NGHTTP2_HEADERS.rawValue)
    static let dataType = UInt8(NGHTTP2_DATA.rawValue)
    static let endStreamFlag = UInt8(NGHTTP2_FLAG_END_STREAM.rawValue)

    static func install(on callbacks: OpaquePointer) {
        unsafe nghttp2_session_callbacks_set_on_begin_frame_callback(callbacks) { session, header, userData in
            unsafe HTTP2Callbacks.beginFrame(session, header, userData)
        }
        unsafe nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, userData in
            unsafe HTTP2Callbacks.beginHeaders(frame, userData)
        }
        unsafe nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, userData in
            unsafe HTTP2Callbacks.header(frame, name, nameLength, value, valueLength, userData)
        }
        unsafe nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, userData in
            unsafe HTTP2Callbacks.frameReceived(frame, userData)
        }
        unsafe nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, stream, data, length, userData in
            unsafe HTTP2Callbacks.dataChunk(stream, data, length, userData)
        }
        unsafe nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, stream, errorCode, userData in
            unsafe HTTP2Callbacks.streamClosed(stream, errorCode, userData)
        }
    }

    static func dataProvider() -> nghttp2_data_provider {
        unsafe nghttp2_data_provider(source: nghttp2_data_source(ptr: nil)) { session, stream, buffer, length, flags, _, userData in
            unsafe HTTP2Callbacks.readData(session, stream, buffer, length, flags, userData)
        }
    }

    static let continuationType = UInt8(NGHTTP2_CONTINUATION.rawValue)

    /// Checks nghttp2 leaves to the server, on every frame header before its payload.
    static func beginFrame(_ session: OpaquePointer?, _ header: UnsafePointer<nghttp2_frame_hd>?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
        guard let session = unsafe session, let header = unsafe header else { return 0 }
        let inbox = unsafe inbox(userData)
        let type = unsafe header.pointee.type
        let stream = unsafe header.pointee.stream_id
        // Empty DATA, HEADERS and CONTINUATION frames that do not end a stream cost work and
        // carry nothing (CVE-2019-9518): beyond a budget the connection ends (ENHANCE_YOUR_CALM).
        if unsafe header.pointee.length == 0, unsafe header.pointee.flags & endStreamFlag == 0,
            type == dataType || type == headersType || type == continuationType
        {
            inbox.emptyFrames += 1
            if inbox.emptyFrames > inbox.maxEmptyFrames { return callbackFailure }
        }
        // RFC 9113 §5.1.1: a new stream's id is above every id the client used. nghttp2 ignores
        // HEADERS on a lower id it no longer knows; the RFC makes it a connection error: GOAWAY
        // PROTOCOL_ERROR, no stream after it, and the connection closes once the streams it
        // admitted are answered (nghttp2 then wants neither to read nor to write).
        if type == headersType, stream & 1 == 1 {
            if stream > inbox.highestClientStream {
                inbox.highestClientStream = stream
            } else if stream < inbox.highestClientStream, unsafe nghttp2_session_find_stream(session, stream) == nil,
                inbox.lastAdmittedStream == Int32.max
            {
                let last = unsafe nghttp2_session_get_last_proc_stream_id(session)
                inbox.lastAdmittedStream = last
                _ = unsafe nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, UInt32(NGHTTP2_PROTOCOL_ERROR.rawValue), nil, 0)
            }
        }
        return 0
    }

    static func beginHeaders(_ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
        guard let frame = unsafe frame, unsafe frame.pointee.hd.type == headersType else { return 0 }
        // A stream above the GOAWAY's last stream id, in the bytes nghttp2 still reads before the
        // GOAWAY is sent, is reset: the client learnt it was not processed.
        if unsafe frame.pointee.hd.stream_id > inbox(userData).lastAdmittedStream { return temporalFailure }
        let isTrailer = unsafe frame.pointee.headers.cat == NGHTTP2_HCAT_HEADERS
        unsafe inbox(userData).headerBlocks[frame.pointee.hd.stream_id] = HTTP2CallbackInbox.HeaderBlock(isTrailer: isTrailer)
        return 0
    }

    static func header(
        _ frame: UnsafePointer<nghttp2_frame>?, _ name: UnsafePointer<UInt8>?, _ nameLength: Int,
        _ value: UnsafePointer<UInt8>?, _ valueLength: Int, _ userData: UnsafeMutableRawPointer?
    ) -> Int32 {
        guard let frame = unsafe frame, let name = unsafe name, let value = unsafe value else { return 0 }
        let inbox = unsafe inbox(userData)
        let stream = unsafe frame.pointee.hd.stream_id
        // Taken out while it grows, so its field list is not copied.
        guard var block = inbox.headerBlocks.removeValue(forKey: stream) else { return 0 }
        block.size += nameLength + valueLength + 32
        if block.size > inbox.maxHeaderBytes * HTTP2CallbackInbox.bombFactor {
            // An HPACK bomb: decoding on would cost time for nothing; the connection ends.
            return callbackFailure
        }
        if !block.isTooLarge {
            if block.size > inbox.maxHeaderBytes || block.fields.count >= inbox.maxHeaderCount + 4 {
                block.isTooLarge = true
                block.fields = []
            } else {
                unsafe block.fields.append(
                    HTTP2Field(
                        name: Array(UnsafeBufferPointer(start: name, count: nameLength)),
                        value: Array(UnsafeBufferPointer(start: value, count: valueLength))))
            }
        }
        inbox.headerBlocks[stream] = block
        return 0
    }

    static func frameReceived(_ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
        guard let frame = unsafe frame else { return 0 }
        let inbox = unsafe inbox(userData)
        let stream = unsafe frame.pointee.hd.stream_id
        let endsStream = unsafe frame.pointee.hd.flags & endStreamFlag != 0
        switch unsafe frame.pointee.hd.type {
        case headersType:
            guard let block = inbox.headerBlocks.removeValue(forKey: stream) else { return 0 }
            let list: HTTP2HeaderList = block.isTooLarge ? .tooLarge : .fields(block.fields)
            if block.isTrailer {
                inbox.releaseHeldBody(of: stream)
                inbox.events.append(.trailers(stream: stream, list))
            } else {
                if !endsStream, let length = block.fields.first(where: { $0.name == HTTP2CallbackInbox.contentLength }) {
                    // nghttp2 checked its syntax; a value beyond Int is not tracked.
                    if let declared = Int(String(decoding: length.value, as: UTF8.self)) {
                        inbox.declaredBodies[stream] = HTTP2CallbackInbox.DeclaredBody(declared: declared)
                    }
                }
                inbox.events.append(.requestHead(stream: stream, list, endsStream: endsStream))
            }
        case dataType where endsStream:
            inbox.releaseHeldBody(of: stream)
            inbox.events.append(.endOfStream(stream: stream))
        default:
            break
        }
        return 0
    }

    static func dataChunk(_ stream: Int32, _ data: UnsafePointer<UInt8>?, _ length: Int, _ userData: UnsafeMutableRawPointer?) -> Int32 {
        guard let data = unsafe data, length > 0 else { return 0 }
        let inbox = unsafe inbox(userData)
        // The bytes view the connection's receive buffer, which is reused: copied out.
        let bytes = unsafe Array(UnsafeBufferPointer(start: data, count: length))
        if var body = inbox.declaredBodies[stream] {
            body.received += length
            if body.received >= body.declared {
                // The bytes that complete the declared length wait for END_STREAM: DATA beyond
                // `content-length` may still come (in a later read), and then the request is
                // malformed (RFC 9113 §8.1.1) and must not reach the upstream complete.
                body.held += bytes
                inbox.declaredBodies[stream] = body
                return 0
            }
            inbox.declaredBodies[stream] = body
        }
        inbox.events.append(.data(stream: stream, bytes))
        return 0
    }

    static func streamClosed(_ stream: Int32, _ errorCode: UInt32, _ userData: UnsafeMutableRawPointer?) -> Int32 {
        let inbox = unsafe inbox(userData)
        inbox.headerBlocks[stream] = nil
        inbox.outbound[stream] = nil
        inbox.declaredBodies[stream] = nil
        inbox.events.append(.closed(stream: stream, errorCode: errorCode))
        return 0
    }

    static func readData(
        _ session: OpaquePointer?, _ stream: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
        _ flags: UnsafeMutablePointer<UInt32>?, _ userData: UnsafeMutableRawPointer?
    ) -> Int {
        guard let buffer = unsafe buffer, let flags = unsafe flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
        let inbox = unsafe inbox(userData)
        // Taken out while it is read, so its bytes are not copied.
        guard var outbound = inbox.outbound.removeValue(forKey: stream) else {
            // The stream was reset meanwhile.
            return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
        }
        defer { inbox.outbound[stream] = outbound }
        let count = unsafe outbound.take(into: buffer, count: length)
        guard outbound.pendingCount == 0 else { return count }
        switch outbound.ending {
        case .open:
            return count == 0 ? Int(NGHTTP2_ERR_DEFERRED.rawValue) : count
        case .ended(let trailers):
            unsafe flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            if !trailers.isEmpty {
                // RFC 9113 §8.1: trailers end the stream in a HEADERS frame of their own;
                // nghttp2 allows submitting them from this callback.
                unsafe flags.pointee |= NGHTTP2_DATA_FLAG_NO_END_STREAM.rawValue
                let submitted = unsafe HTTP2Session.withNameValues(trailers) { nva, count in
                    unsafe nghttp2_submit_trailer(session, stream, nva, count)
                }
                if submitted != 0 { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
            }
            return count
        }
    }
}
