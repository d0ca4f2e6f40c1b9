// Feeds a head to HeadScanner without copying when it arrives in one piece (the common case),
// and keeps the bytes of a head split across reads in one buffer, so string building always
// sees the whole head contiguously. The buffer never grows past what the limits allow.

// Unsafe (the parser's input): `parse` takes the caller's buffer for one call; every step reads
// `bytes[i]` only for `i < count` (or `end`) of that buffer, a head split across calls is copied into
// HeadReader's own buffer, and events carry index ranges, not pointers. See docs/memory-safety.md.

struct HeadReader: Sendable {
    private(set) var scanner: HeadScanner
    /// The head so far, when it spans more than one `feed` call.
    private(set) var buffer: [UInt8] = []

    /// Buffer capacity kept between messages; a larger one (a rare huge head) is released so
    /// idle keep-alive connections stay small.
    private static let retainedCapacity = 4096

    init(kind: HeadScanner.Kind) {
        scanner = HeadScanner(kind: kind)
    }

    /// Whether any byte of a head has been seen.
    var hasStarted: Bool { scanner.position > 0 }

    /// Feeds `input[start..<end]`.
    /// - Returns: the input index just past the head when it completed in this call; nil when
    ///   every byte was taken and the head is still incomplete.
    mutating func feed(
        _ input: UnsafePointer<UInt8>,
        start: Int,
        end: Int,
        limits: HTTPLimits
    ) throws(HTTPParseError) -> Int? {
        if buffer.isEmpty {
            if unsafe try scanner.scan(input + start, count: end - start, limits: limits) {
                return start + scanner.position
            }
            unsafe buffer.append(contentsOf: UnsafeBufferPointer(start: input + start, count: end - start))
            return nil
        }
        let previous = buffer.count
        let taken = min(end - start, maxBufferedBytes(limits) - previous)
        unsafe buffer.append(contentsOf: UnsafeBufferPointer(start: input + start, count: taken))
        let isComplete = unsafe try buffer.withUnsafeBufferPointer { bytes throws(HTTPParseError) -> Bool in
            unsafe try scanner.scan(bytes.baseAddress!, count: bytes.count, limits: limits)
        }
        if isComplete {
            // Bytes after the head belong to the body or the next message: give them back.
            buffer.removeLast(buffer.count - scanner.position)
            return start + scanner.position - previous
        }
        if taken < end - start {
            // Unreachable while maxBufferedBytes exceeds every limit the scanner checks.
            throw HTTPParseError(.headerSectionTooLarge, reason: "head larger than the limits allow")
        }
        return nil
    }

    /// Calls `body` with a pointer to the first byte of the completed head (`input + start` when
    /// it arrived in one piece, else the buffer) and the scanner that read it. Passing the
    /// scanner in lets callers use closures that capture nothing of theirs.
    func withHead<Result>(
        input: UnsafePointer<UInt8>,
        start: Int,
        _ body: (UnsafePointer<UInt8>, borrowing HeadScanner) throws(HTTPParseError) -> Result
    ) throws(HTTPParseError) -> Result {
        if buffer.isEmpty { return unsafe try body(input + start, scanner) }
        return unsafe try buffer.withUnsafeBufferPointer { bytes throws(HTTPParseError) -> Result in
            unsafe try body(bytes.baseAddress!, scanner)
        }
    }

    /// Starts over for a new head.
    mutating func reset(kind: HeadScanner.Kind) {
        scanner.reset(kind: kind)
        if buffer.capacity > Self.retainedCapacity {
            buffer = []
        } else {
            buffer.removeAll(keepingCapacity: true)
        }
    }

    /// Start line, its CRLF and the field section, plus one byte so a head that passes every
    /// limit is still seen passing it.
    private func maxBufferedBytes(_ limits: HTTPLimits) -> Int {
        switch scanner.kind {
        case .request, .response: limits.maxRequestLineBytes + 2 + limits.maxHeaderBytes + 1
        case .trailers: limits.maxHeaderBytes + 1
        }
    }
}
