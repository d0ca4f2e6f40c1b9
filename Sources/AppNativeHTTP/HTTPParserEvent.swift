/// One step of an incremental parse: a head, a slice of body, or the end of a message.
///
/// `Head` is `HTTPRequestHead` for `HTTPRequestParser` and `HTTPResponseHead` for
/// `HTTPResponseParser`.
public enum HTTPParserEvent<Head: Sendable>: Sendable {
    /// A complete, validated head and how its body is framed. Nothing of the body has been
    /// consumed yet.
    case head(Head, HTTPBodyFraming)
    /// Body bytes, de-chunked: indices into the buffer passed to the `parse` call that returned
    /// this event (0-based, no copy). They are valid only as long as that buffer is.
    case body(Range<Int>)
    /// The message is complete. `trailers` holds the trailer fields of a chunked body, or nil
    /// when there were none. Trailers are never merged into the head (RFC 9110 §6.5.1).
    case end(trailers: HTTPHeaders?)
}

extension HTTPParserEvent: Equatable where Head: Equatable {}
