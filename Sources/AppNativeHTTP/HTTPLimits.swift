/// Size limits the parsers enforce before any byte is buffered past them.
///
/// Every limit turns into a specific status (RFC 9110 §15.5.14, §15.5.15, RFC 6585 §5), so a
/// peer learns which limit it hit and nothing else.
public struct HTTPLimits: Sendable, Hashable {
    /// Longest request line (method, target and version, without CRLF); longer gives 414.
    /// The response parser applies it to the status line.
    public var maxRequestLineBytes: Int
    /// Largest field section (every field line with its CRLF, plus the final CRLF); a section or
    /// a single line that passes it gives 431. Trailer sections get the same limit.
    public var maxHeaderBytes: Int
    /// Most field lines in one section; one more gives 431.
    public var maxHeaderCount: Int
    /// Largest body; nil means unlimited. A declared Content-Length or a chunk size that would
    /// pass it gives 413 as soon as the number has been read, before any of the body is delivered.
    public var maxBodyBytes: UInt64?

    /// - Parameters:
    ///   - maxRequestLineBytes: longest request or status line, at least 16.
    ///   - maxHeaderBytes: largest field section, at least 2.
    ///   - maxHeaderCount: most field lines, at least 1.
    ///   - maxBodyBytes: largest body, or nil for no limit.
    public init(
        maxRequestLineBytes: Int = 8192,
        maxHeaderBytes: Int = 65536,
        maxHeaderCount: Int = 100,
        maxBodyBytes: UInt64? = nil
    ) {
        precondition(maxRequestLineBytes >= 16, "a request line limit below 16 bytes rejects every request")
        precondition(maxHeaderBytes >= 2 && maxHeaderCount >= 1, "header limits must admit an empty section")
        // HTTPHeaders stores offsets as UInt32.
        precondition(maxHeaderBytes <= Int(UInt32.max) && maxRequestLineBytes <= Int(UInt32.max), "limits above 4 GiB")
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
    }
}
