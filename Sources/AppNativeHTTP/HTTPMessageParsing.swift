/// A parser of HTTP/1.1 messages fed from a connection's read buffer: the request parser on the
/// client side, the response parser on the upstream side. Both connections hand it a range of the
/// buffer they read into, through `parse(_:in:)`, so the borrowing of that buffer is written once.
public protocol HTTPMessageParsing {
    associatedtype Head: Sendable

    /// Parses from the start of `input`; see the conforming parsers.
    mutating func parse(_ input: UnsafeRawBufferPointer) throws(HTTPParseError) -> (consumed: Int, event: HTTPParserEvent<Head>?)
}

extension HTTPMessageParsing {
    /// Parses `range` of `bytes`: how many bytes were consumed and the event they completed, or the
    /// error with the status to answer. Inlinable: each connection gets it specialised for its
    /// parser, so the hot path makes no generic call.
    @inlinable
    public mutating func parse(
        _ bytes: [UInt8], in range: Range<Int>
    ) -> Result<(consumed: Int, event: HTTPParserEvent<Head>?), HTTPParseError> {
        // unsafe: the parser reads `range` of `bytes` inside the closure and keeps no pointer past
        // it; `rebasing` traps rather than read outside the array if a caller passed a range
        // beyond it.
        unsafe bytes.withUnsafeBytes { buffer in
            do throws(HTTPParseError) {
                return unsafe .success(try parse(UnsafeRawBufferPointer(rebasing: buffer[range])))
            } catch {
                return .failure(error)
            }
        }
    }
}

extension HTTPRequestParser: HTTPMessageParsing {}
extension HTTPResponseParser: HTTPMessageParsing {}
