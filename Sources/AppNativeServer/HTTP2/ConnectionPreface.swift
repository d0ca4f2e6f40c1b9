/// Tells an HTTP/2 client with prior knowledge from an HTTP/1.1 client by the first bytes of a
/// cleartext connection: the client connection preface (RFC 9113 §3.4). No request method of
/// HTTP/1.1 starts with `PRI `, so the decision is made at the first byte that differs.
enum ConnectionPreface {
    /// `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`.
    static let bytes: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    enum Verdict: Equatable {
        /// The input is the whole preface (or starts with it).
        case http2
        /// The input differs from the preface: HTTP/1.1.
        case http1
        /// The input is a strict prefix of the preface: wait for more.
        case undecided
    }

    /// Classifies the first bytes of a connection.
    static func classify(_ input: ArraySlice<UInt8>) -> Verdict {
        var index = input.startIndex
        for expected in bytes {
            guard index < input.endIndex else { return .undecided }
            if input[index] != expected { return .http1 }
            index += 1
        }
        return .http2
    }
}
