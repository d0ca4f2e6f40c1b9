/// How the body of a message is delimited on the wire (RFC 9112 §6.3).
public enum HTTPBodyFraming: Sendable, Hashable {
    /// No body follows the head: a request without Content-Length or Transfer-Encoding, or a
    /// response that cannot have one (HEAD, 1xx, 204, 304).
    case none
    /// Exactly this many bytes follow (Content-Length, RFC 9110 §8.6). Zero is reported as
    /// `contentLength(0)`, not `none`, so a forwarder can keep the explicit zero.
    case contentLength(UInt64)
    /// The body uses the chunked transfer coding (RFC 9112 §7.1); the parsers de-chunk it.
    case chunked
    /// A response without Content-Length or Transfer-Encoding: the body ends when the upstream
    /// closes the connection (RFC 9112 §6.3 rule 8). Never produced for requests.
    case untilClose
}
