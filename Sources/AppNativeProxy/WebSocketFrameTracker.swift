/// Follows the frame headers (RFC 6455 §5.2) of one direction of a WebSocket tunnel, so the
/// gateway knows where a frame ends and can put its own close frame between two frames instead
/// of into the middle of one.
///
/// Payload bytes are skipped by count, not read; only header bytes are looked at. A length with
/// the most significant bit set (invalid, RFC 6455 §5.2) is followed as it is: the tracker then
/// simply never reaches the frame's end, and the caller's deadline closes the connection.
struct WebSocketFrameTracker {
    private enum State {
        /// Between frames, or inside a header: the header bytes seen so far.
        case header(seen: Int)
        case payload(remaining: UInt64)
    }

    private var state = State.header(seen: 0)
    /// The header being read (at most 2 + 8 + 4 bytes).
    private var header: [UInt8] = []

    /// Whether the bytes followed so far end exactly at a frame boundary.
    var isAtFrameBoundary: Bool {
        if case .header(seen: 0) = state { return true }
        return false
    }

    /// Follows `bytes`; with `stoppingAtBoundary`, stops at the first frame boundary after at
    /// least one byte (or at once when already at one).
    /// - Returns: how many bytes of `bytes` were followed.
    mutating func follow(_ bytes: ArraySlice<UInt8>, stoppingAtBoundary: Bool = false) -> Int {
        var index = 0
        while index < bytes.count {
            if stoppingAtBoundary && isAtFrameBoundary { return index }
            switch state {
            case .payload(let remaining):
                let taken = min(UInt64(bytes.count - index), remaining)
                index += Int(taken)
                state = remaining == taken ? .header(seen: 0) : .payload(remaining: remaining - taken)
            case .header(let seen):
                if seen == 0 { header.removeAll(keepingCapacity: true) }
                header.append(bytes[bytes.startIndex + index])
                index += 1
                state = .header(seen: seen + 1)
                if let payload = Self.payloadLength(ofComplete: header) {
                    state = payload == 0 ? .header(seen: 0) : .payload(remaining: payload)
                }
            }
        }
        return index
    }

    /// The payload length once `header` holds a whole frame header, nil while it is incomplete.
    private static func payloadLength(ofComplete header: [UInt8]) -> UInt64? {
        guard header.count >= 2 else { return nil }
        let isMasked = header[1] & 0x80 != 0
        let shortLength = header[1] & 0x7F
        let lengthBytes = shortLength == 126 ? 2 : shortLength == 127 ? 8 : 0
        guard header.count == 2 + lengthBytes + (isMasked ? 4 : 0) else { return nil }
        guard lengthBytes > 0 else { return UInt64(shortLength) }
        var length: UInt64 = 0
        for byte in header[2..<(2 + lengthBytes)] { length = length << 8 | UInt64(byte) }
        return length
    }

    /// A close frame (RFC 6455 §5.5.1) with `code` and a UTF-8 `reason` of at most 123 bytes;
    /// masked with `maskingKey` when it goes to a server (§5.3).
    static func closeFrame(code: UInt16, reason: String, maskingKey: [UInt8]? = nil) -> [UInt8] {
        var payload = [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8.prefix(123))
        var frame: [UInt8] = [0x88, UInt8(payload.count)]
        if let maskingKey, maskingKey.count == 4 {
            frame[1] |= 0x80
            frame += maskingKey
            for index in payload.indices { payload[index] ^= maskingKey[index % 4] }
        }
        return frame + payload
    }
}
