/// One field line of an HTTP/2 header block as HPACK decoded it: a name (lowercase, checked by
/// the session) and a value, both raw bytes.
struct HTTP2Field: Sendable, Hashable {
    var name: [UInt8]
    var value: [UInt8]

    init(name: [UInt8], value: [UInt8]) {
        self.name = name
        self.value = value
    }

    init(_ name: String, _ value: String) {
        self.name = Array(name.utf8)
        self.value = Array(value.utf8)
    }

    var isPseudoHeader: Bool { name.first == UInt8(ascii: ":") }
}

/// A request's header block: its fields, or the fact that it outgrew the header limits (the
/// fields were not kept; the stream is answered 431).
enum HTTP2HeaderList: Sendable, Hashable {
    case fields([HTTP2Field])
    case tooLarge
}

/// What the session's C callbacks saw during one `receive`, in order; the connection's state
/// machine turns each into an action.
enum HTTP2SessionEvent: Sendable, Hashable {
    /// A request's header block is complete; `endsStream`: the request has no body.
    case requestHead(stream: Int32, HTTP2HeaderList, endsStream: Bool)
    /// A trailer section (it always ends the stream).
    case trailers(stream: Int32, HTTP2HeaderList)
    /// Request body bytes (the session has already checked them against the windows).
    case data(stream: Int32, [UInt8])
    /// END_STREAM on a DATA frame: the request body is complete without trailers.
    case endOfStream(stream: Int32)
    /// The stream is closed (both sides done, or reset by either side).
    case closed(stream: Int32, errorCode: UInt32)
}
