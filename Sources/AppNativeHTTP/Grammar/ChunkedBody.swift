// A chunked message body after its head (RFC 9112 §7.1): chunk data, the last chunk, then the
// trailer section. Requests and responses read it alike, so both parsers hold one of these
// while their state is `.chunkedBody`.

struct ChunkedBody: Sendable {
    private enum Phase: Sendable {
        case chunks
        case trailers
    }

    private var decoder = ChunkedDecoder()
    private var phase = Phase.chunks

    /// Reads chunk framing and data from `bytes[0..<count]`, then the trailer section (with
    /// `reader`, which the parser reuses for its heads).
    /// - Returns: how many bytes were consumed and the event they completed: `.body` with chunk
    ///   data, `.end` with the trailers once the section is complete, nil when more is needed.
    ///
    /// Unsafe: `bytes` points at `count` initialised bytes for the whole call; the decoder and
    /// the reader read only below `count`.
    mutating func step<Head>(
        _ bytes: UnsafePointer<UInt8>,
        count: Int,
        reader: inout HeadReader,
        limits: HTTPLimits
    ) throws(HTTPParseError) -> (consumed: Int, event: HTTPParserEvent<Head>?) {
        var start = 0
        if case .chunks = phase {
            let (next, step) = unsafe try decoder.decode(bytes, start: 0, end: count, maxBodyBytes: limits.maxBodyBytes)
            switch step {
            case .needMore: return (next, nil)
            case .data(let range): return (next, .body(range))
            case .lastChunk:
                reader.reset(kind: .trailers)
                phase = .trailers
                start = next
            }
        }
        guard let end = unsafe try reader.feed(bytes, start: start, end: count, limits: limits) else { return (count, nil) }
        let trailers = unsafe try reader.withHead(input: bytes, start: start) { head, scanner in
            unsafe scanner.fields.isEmpty ? nil : FieldStrings.headers(head, scanner.fields)
        }
        return (end, .end(trailers: trailers))
    }
}
