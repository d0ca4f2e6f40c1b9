@testable import AppNativeClient
import CAppNativeLinux
import Glibc
import Testing

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

/// `CorkedSockets` on real loopback sockets: what it tracks, that a flush sends what the cork
/// held, and that a closed socket is forgotten before its number can be reused.
@Suite("Corked curl sockets")
struct CorkedSocketsTests {
    @Test("a connection socket is corked; a flush sends what it held at once and corks it again")
    func corkAndFlush() throws {
        let pair = try LoopbackPair()
        defer { pair.close() }
        let sockets = CorkedSockets()
        sockets.opened(pair.client)
        #expect(sockets.descriptors == [pair.client])
        #expect(appnative_cork(pair.client) == 1)

        // Corked, less than a segment stays in the send queue (tcp(7): up to 200 ms); the
        // flush sends it at once and leaves the socket corked. (What the queue holds before
        // the flush is not asserted: a test thread descheduled for 200 ms would see it gone.)
        let bytes: [UInt8] = Array("HEADERS+DATA".utf8)
        let observed1 = unsafe bytes.withUnsafeBytes { unsafe send(pair.client, $0.baseAddress, $0.count, 0) } == bytes.count
        #expect(observed1)
        sockets.flush()
        #expect(appnative_unsent_bytes(pair.client) == 0)
        #expect(try pair.receive(count: bytes.count) == bytes)
        #expect(appnative_cork(pair.client) == 1)

        #expect(sockets.closed(pair.client) == 0)
        #expect(sockets.descriptors.isEmpty)
        pair.clientClosed()
    }

    @Test("a socket that is not TCP is left alone but still closed")
    func notTCP() throws {
        var ends: [Int32] = [-1, -1]
        let observed2 = unsafe socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0
        #expect(observed2)
        defer { Glibc.close(ends[1]) }
        let sockets = CorkedSockets()
        sockets.opened(ends[0])
        #expect(sockets.descriptors.isEmpty)
        sockets.flush()
        #expect(sockets.closed(ends[0]) == 0)
    }

    @Test("closing one of several sockets flushes only the others afterwards")
    func closeOneOfTwo() throws {
        let first = try LoopbackPair()
        let second = try LoopbackPair()
        defer {
            first.close()
            second.close()
        }
        let sockets = CorkedSockets()
        sockets.opened(first.client)
        sockets.opened(second.client)
        #expect(sockets.closed(first.client) == 0)
        first.clientClosed()
        #expect(sockets.descriptors == [second.client])
        let bytes: [UInt8] = [1, 2, 3]
        let observed3 = unsafe bytes.withUnsafeBytes { unsafe send(second.client, $0.baseAddress, $0.count, 0) } == bytes.count
        #expect(observed3)
        sockets.flush()
        #expect(appnative_unsent_bytes(second.client) == 0)
        #expect(try second.receive(count: bytes.count) == bytes)
    }
}

/// A connected TCP pair on 127.0.0.1: `client` (the end under test) and the accepted `server`.
private final class LoopbackPair {
    struct Failure: Error { var call: String }

    private(set) var client: Int32 = -1
    let server: Int32

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw Failure(call: "socket") }
        defer { Glibc.close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = unsafe inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = unsafe withUnsafeMutablePointer(to: &address) {
            unsafe $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                unsafe bind(listener, address, length) == 0 && listen(listener, 1) == 0
                    && getsockname(listener, address, &length) == 0
            }
        }
        guard bound else { throw Failure(call: "bind/listen") }
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard client >= 0 else { throw Failure(call: "socket") }
        let connected = unsafe withUnsafePointer(to: &address) {
            unsafe $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { unsafe connect(client, $0, length) == 0 }
        }
        let server = connected ? accept(listener, nil, nil) : -1
        guard server >= 0 else {
            Glibc.close(client)
            throw Failure(call: "connect/accept")
        }
        self.client = client
        self.server = server
    }

    /// Reads exactly `count` bytes (a bound of 5 s only keeps a broken case from hanging).
    func receive(count: Int) throws -> [UInt8] {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        unsafe setsockopt(server, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: count)
        while received.count < count {
            let read = unsafe buffer.withUnsafeMutableBytes { unsafe recv(server, $0.baseAddress, count - received.count, 0) }
            guard read > 0 else { throw Failure(call: "recv") }
            received += buffer[..<read]
        }
        return received
    }

    /// The client end was closed by the code under test.
    func clientClosed() { client = -1 }

    func close() {
        if client >= 0 { Glibc.close(client) }
        Glibc.close(server)
    }
}
