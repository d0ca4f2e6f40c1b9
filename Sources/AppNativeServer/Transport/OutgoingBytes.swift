package import AppNativeHTTP

/// Bytes queued for a socket, written in as few `send` calls as the transport accepts.
/// Shared by client and upstream connections so both drain, compact and frame the same way.
package struct OutgoingBytes: Sendable {
    private var bytes: [UInt8] = []
    private var start = 0
    /// Bytes dropped from the front of `bytes` by compaction: `base + i` is the position of
    /// `bytes[i]` in everything ever queued, which `mark` and `retract(to:)` speak in.
    private var base = 0

    package init() {}

    /// Bytes queued and not yet accepted by the transport.
    package var pendingCount: Int { bytes.count - start }
    package var isEmpty: Bool { start == bytes.count }

    /// The position the next queued byte gets.
    package var mark: Int { base + bytes.count }

    /// Drops everything queued since `mark` if none of it has been sent yet.
    /// - Returns: whether it was dropped (false: some of it already left).
    package mutating func retract(to mark: Int) -> Bool {
        guard base + start <= mark, mark <= base + bytes.count else { return false }
        bytes.removeSubrange((mark - base)...)
        return true
    }

    package mutating func append(_ slice: ArraySlice<UInt8>) { bytes.append(contentsOf: slice) }
    package mutating func append(_ array: [UInt8]) { bytes.append(contentsOf: array) }
    /// Appends bytes another library serialised (HTTP/2 frames), copied before it reuses them.
    // unsafe: the caller lends `buffer` for this call; its bytes are copied.
    package mutating func append(_ buffer: UnsafeBufferPointer<UInt8>) { unsafe bytes.append(contentsOf: buffer) }

    /// Appends one chunk of the chunked transfer coding (RFC 9112 §7.1).
    package mutating func appendChunk(_ slice: ArraySlice<UInt8>) {
        guard !slice.isEmpty else { return }
        HTTPSerializer.appendChunkHeader(size: slice.count, to: &bytes)
        bytes.append(contentsOf: slice)
        HTTPSerializer.appendChunkEnd(to: &bytes)
    }

    package mutating func appendLastChunk(trailers: HTTPHeaders?) {
        HTTPSerializer.appendLastChunk(trailers: trailers, to: &bytes)
    }

    package mutating func appendResponseHead(_ head: HTTPResponseHead) {
        HTTPSerializer.appendResponseHead(head, to: &bytes)
    }

    /// Serialises `head` straight into the queue (no intermediate buffer per request).
    package mutating func appendRequestHead(_ head: HTTPRequestHead) {
        HTTPSerializer.appendRequestHead(head, to: &bytes)
    }

    package enum DrainOutcome: Sendable {
        /// Everything was written.
        case drained
        /// The transport would block: wait for writability. `progressed` tells whether bytes moved.
        case blocked(progressed: Bool)
        case failed
    }

    /// Writes as much as `transport` takes now.
    package mutating func drain(to transport: any ConnectionTransport) -> DrainOutcome {
        var progressed = false
        while start < bytes.count {
            // unsafe: the transport reads the borrowed range inside the closure only.
            let result = unsafe bytes.withUnsafeBytes { unsafe transport.send(UnsafeRawBufferPointer(rebasing: $0[start...])) }
            switch result {
            case .transferred(let sent):
                start += sent
                progressed = progressed || sent > 0
            case .wouldBlock:
                return .blocked(progressed: progressed)
            case .closed, .failed:
                return .failed
            }
        }
        // Keep a moderate buffer for the next response; give back a huge one.
        base += bytes.count
        bytes.removeAll(keepingCapacity: bytes.capacity <= 1 << 20)
        start = 0
        return .drained
    }
}
