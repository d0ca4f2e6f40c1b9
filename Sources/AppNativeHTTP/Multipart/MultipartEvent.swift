/// One step of an incremental `multipart/form-data` parse.
///
/// A body gives `partBegan`, content events, `partEnded` for each part, then `finished` once the
/// close delimiter line is complete. Events are provisional until `finished`: a later error
/// refuses the whole body (RFC 7578 has no partial success), so a consumer must not act on a
/// part (store a file, call back) before it has seen `finished`.
public enum MultipartEvent: Sendable, Hashable {
    /// A part's header section is complete and valid. Its content follows.
    case partBegan(MultipartPartHead)
    /// Content bytes: indices into the buffer passed to the `parse` call that returned this
    /// event (0-based, no copy). Valid only as long as that buffer is.
    case content(Range<Int>)
    /// Content bytes held back from earlier buffers because they might have begun a delimiter,
    /// and did not: at most `CRLF "--" boundary` and one more byte (boundary length + 5).
    case heldContent([UInt8])
    /// The current part's content is complete.
    case partEnded
    /// The close delimiter line has been read; anything after it is epilogue and is ignored.
    case finished
}
