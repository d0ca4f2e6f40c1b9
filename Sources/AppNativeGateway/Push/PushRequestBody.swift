/// The body of an admitted push request as it arrives, capped: bytes are kept while the total
/// stays within the limit; the chunk that passes it drops everything kept, and nothing after it
/// is kept. Memory per request is therefore at most the limit, and a body over it never costs
/// more than the bytes that arrived before it passed.
///
/// A value-type machine: `receive` per chunk, then `finish` at the end of the body.
struct PushRequestBody {
    /// Where the body is.
    enum State: Equatable {
        /// Within the limit so far.
        case collecting([UInt8])
        /// Passed the limit; what follows is dropped.
        case tooLarge
        /// `finish` handed the outcome out.
        case finished
    }

    /// What a chunk did.
    enum Step: Equatable {
        /// Kept: the body is within the limit.
        case kept
        /// This chunk passed the limit: answer 413 now.
        case passedLimit
        /// Dropped: the limit was passed before, or the body was finished.
        case dropped
    }

    /// The body, once it ended.
    enum Outcome: Equatable {
        case complete([UInt8])
        /// Over the limit (already answered when `receive` said `passedLimit`).
        case tooLarge
    }

    let limit: Int
    private(set) var state: State

    /// - Parameters:
    ///   - limit: the most bytes kept.
    ///   - declaredBytes: the length the head declared, if any; storage for it is reserved when
    ///     it is within `limit` (the head was admitted, so it is).
    init(limit: Int, declaredBytes: UInt64? = nil) {
        self.limit = limit
        var bytes: [UInt8] = []
        if let declaredBytes, declaredBytes <= UInt64(limit) { bytes.reserveCapacity(Int(declaredBytes)) }
        state = .collecting(bytes)
    }

    /// Takes the next chunk of the body.
    mutating func receive(_ chunk: ArraySlice<UInt8>) -> Step {
        guard case .collecting(var bytes) = state else { return .dropped }
        guard chunk.count <= limit - bytes.count else {
            state = .tooLarge
            return .passedLimit
        }
        // Moved out of the state while appending, so the array is not copied.
        state = .finished
        bytes.append(contentsOf: chunk)
        state = .collecting(bytes)
        return .kept
    }

    /// Ends the body and hands out what was collected; `nil` when it was handed out before.
    mutating func finish() -> Outcome? {
        defer { state = .finished }
        switch state {
        case .collecting(let bytes): return .complete(bytes)
        case .tooLarge: return .tooLarge
        case .finished: return nil
        }
    }
}
