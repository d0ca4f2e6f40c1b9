import AppNativeHTTP
import AppNativeTesting
import Foundation

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

/// Reads one response from a client's socket with the product's response parser, handing body
/// pieces to the caller as they arrive and keeping none of them (RawHTTPClient collects the
/// whole body). The caller decides how much to receive at a time, so it can also read slowly.
/// Blocking: use inside `blocking {}`.
final class StreamingResponseReader {
    private let descriptor: Int32
    private var parser = HTTPResponseParser()
    private var buffer: [UInt8]
    private(set) var head: HTTPResponseHead?
    private(set) var bodyCount = 0
    private(set) var isComplete = false

    init(_ client: RawHTTPClient, method: String = "GET", bufferSize: Int = 1 << 20) {
        descriptor = client.descriptor
        buffer = [UInt8](repeating: 0, count: bufferSize)
        parser.expectResponse(to: method)
    }

    /// One `recv` of at most `limit` bytes, parsed; body pieces go to `body` (valid during the
    /// call only). Returns the bytes received; throws at end of stream before the response ended.
    @discardableResult
    func receive(limit: Int = .max, body: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        let wanted = min(limit, buffer.count)
        let received = unsafe buffer.withUnsafeMutableBytes { unsafe recv(descriptor, $0.baseAddress!, wanted, 0) }
        if received < 0 && errno == EINTR { return 0 }
        guard received > 0 else {
            throw FixtureFailure(description: received == 0 ? "connection closed after \(bodyCount) body bytes" : "recv failed: errno \(errno)")
        }
        unsafe try buffer.withUnsafeBytes { all in
            var position = 0
            while position < received || !isComplete {
                let slice = unsafe UnsafeRawBufferPointer(rebasing: all[position..<received])
                let step = unsafe try parser.parse(slice)
                position += step.consumed
                switch step.event {
                case .head(let received, _)?:
                    if (100..<200).contains(received.status) { continue }
                    head = received
                case .body(let range)?:
                    bodyCount += range.count
                    unsafe try body(UnsafeRawBufferPointer(rebasing: slice[range]))
                case .end?:
                    if head != nil { isComplete = true }
                case nil:
                    return
                }
            }
        }
        return received
    }

    /// Receives until the response is complete.
    func readToEnd(body: (UnsafeRawBufferPointer) throws -> Void) throws {
        while !isComplete { unsafe try receive(body: body) }
    }
}
