import AppNativeHTTP
@_spi(Fuzzing) import AppNativeServer

// Unsafe (harness): the input is libFuzzer's buffer, valid for the `run` call and read within its
// count (two bytes checked first); chunks handed to the driver are borrowed for their call.

/// The HTTP/2 connection's input path (nghttp2 with the gateway's limits and callbacks, then
/// `HTTP2ConnectionState` and `HTTP2RequestHead`) on arbitrary bytes, without a socket.
///
/// Input: the first byte's low bit chooses whether the valid connection preface and an empty
/// SETTINGS frame come first (so mutations reach the frames) or the bytes are fed raw (so they
/// reach the preface check); the second byte chooses a split point in the rest. The rest is fed
/// once whole and once as two reads: both must give the same requests, answers, resets and
/// verdict. Every request that becomes an exchange must hold to the limits, and the streams in
/// flight to the advertised maximum. Body bytes are not compared: a body streams as it arrives,
/// so how much of an unfinished one was handed over depends on the reads (the held end of a
/// declared length is checked by `Adversarial: HTTP/2 frames`, content-length-split).
enum HTTP2ConnectionHarness {
    /// Small limits, so mutations reach every limit path.
    static let limits = HTTPLimits(maxRequestLineBytes: 256, maxHeaderBytes: 1024, maxHeaderCount: 16, maxBodyBytes: 4096)

    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 4, 0, 0, 0, 0, 0]

    struct Verdict: Equatable {
        var requests: [HTTPRequestHead]
        var answers: Int
        var resets: Int
        var failed: Bool
    }

    static func run(_ input: UnsafeRawBufferPointer) {
        guard input.count >= 2 else { return }
        let withPreface = unsafe input[0] & 1 == 0
        let rest = unsafe (withPreface ? preface : []) + Array(input.dropFirst(2))
        let split = unsafe rest.count * Int(input[1]) / 255
        let whole = feed([rest])
        let halves = feed([Array(rest[..<split]), Array(rest[split...])])
        check(whole == halves, "split at \(split) of \(rest.count) changes the verdict: whole \(whole), split \(halves)")
    }

    static func feed(_ chunks: [[UInt8]]) -> Verdict {
        guard let driver = HTTP2InputDriver(limits: limits) else { failCheck("no nghttp2 session") }
        for chunk in chunks {
            // Each read in a buffer of its own, as the connection's reads are.
            let open = unsafe chunk.withUnsafeBytes { unsafe driver.receive($0) }
            check(driver.openStreams <= driver.maxConcurrentStreams, "\(driver.openStreams) streams in flight")
            if !open { break }
        }
        for head in driver.tally.requests {
            check(!head.method.isEmpty && head.target.utf8.count <= limits.maxRequestLineBytes, "request line \(head.method) \(head.target)")
            check(head.headers.count <= limits.maxHeaderCount, "\(head.headers.count) fields")
        }
        check(driver.tally.bodyBytes <= chunks.reduce(0) { $0 + $1.count }, "more body than input")
        let tally = driver.tally
        return Verdict(requests: tally.requests, answers: tally.answers, resets: tally.resets, failed: tally.failed)
    }
}

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

func failCheck(_ message: @autoclosure () -> String) -> Never {
    fatalError(message())
}
