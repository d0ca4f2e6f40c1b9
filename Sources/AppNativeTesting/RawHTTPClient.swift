public import AppNativeHTTP
import Foundation
import Glibc

// Unsafe (Glibc, tests only): socket addresses are local structs passed with their sizes; argv and
// envp are NUL-terminated arrays of strdup'ed strings freed after the spawn; buffers are borrowed
// with their counts for each call.

/// A blocking HTTP/1.1 client over a raw TCP socket, for tests that must control every byte
/// (pipelining, malformed requests, half-sent bodies). Responses are read with the product's
/// response parser. Every read has a timeout, so a test never hangs.
public final class RawHTTPClient {
    public struct Response: Sendable {
        public var head: HTTPResponseHead
        public var body: [UInt8]
        public var bodyText: String { String(decoding: body, as: UTF8.self) }
        public var status: Int { head.status }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private let fd: Int32
    /// The socket, for tests that read raw bytes (interim responses, streams).
    public var descriptor: Int32 { fd }
    private var parser = HTTPResponseParser()
    private var buffered: [UInt8] = []
    public private(set) var isClosedByPeer = false

    /// Connects to `host` (an IPv4 loopback address: the whole 127.0.0.0/8 is local) and `port`.
    public init(port: Int, host: String = "127.0.0.1", timeout: Duration = .seconds(10)) throws {
        // Close-on-exec: a child another test spawns meanwhile must not hold this connection
        // open after the test closed it (the server would never see it end).
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = unsafe inet_addr(host)
        let result = unsafe withUnsafePointer(to: &address) {
            unsafe $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { unsafe connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw Failure(description: "connect to \(host):\(port) failed: errno \(errno)")
        }
        var interval = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        unsafe setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = unsafe bytes.withUnsafeBytes { unsafe Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw Failure(description: "send failed: errno \(errno)") }
            offset += sent
        }
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Sends Latin-1 text byte for byte (the http1 vectors' encoding).
    public func send(latin1 text: String) throws { try send(text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }) }

    /// Reads the next complete response (`method` tells whether a body follows).
    public func readResponse(to method: String = "GET") throws -> Response {
        parser.expectResponse(to: method)
        var head: HTTPResponseHead?
        var body = [UInt8]()
        var sawInterim = false
        while true {
            // Parse until the parser needs more input; an empty buffer can still complete a message.
            while true {
                let step = unsafe try buffered.withUnsafeBytes { unsafe try parser.parse($0) }
                var chunk: [UInt8] = []
                if case .body(let range)? = step.event { chunk = Array(buffered[range]) }
                buffered.removeFirst(step.consumed)
                switch step.event {
                case .head(let received, _)?:
                    if (100..<200).contains(received.status) && received.status != 101 {
                        sawInterim = true
                        parser.expectResponse(to: method)
                        continue
                    }
                    head = received
                    if received.status == 101 { return Response(head: received, body: []) }
                case .body?:
                    body += chunk
                case .end?:
                    guard let head else {
                        // The end of a 1xx interim response: the final response follows.
                        if sawInterim {
                            parser.expectResponse(to: method)
                            continue
                        }
                        throw Failure(description: "end without head")
                    }
                    return Response(head: head, body: body)
                case nil:
                    break
                }
                if step.event == nil && (step.consumed == 0 || buffered.isEmpty) { break }
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let received = unsafe recv(fd, &chunk, chunk.count, 0)
            if received > 0 {
                buffered += chunk[0..<received]
                continue
            }
            if received == 0 {
                isClosedByPeer = true
                if case .end? = try parser.finish(), let head { return Response(head: head, body: body) }
                throw Failure(description: "connection closed before a complete response")
            }
            throw Failure(description: "read failed or timed out: errno \(errno)")
        }
    }

    /// Whether the server closed the connection (reads EOF within the timeout).
    public func readsEndOfStream() -> Bool {
        if isClosedByPeer { return true }
        var byte: UInt8 = 0
        let received = unsafe recv(fd, &byte, 1, 0)
        return received == 0 || (received < 0 && errno == ECONNRESET)
    }

    /// One request with a body (`Content-Length`) on a fresh connection.
    public static func request(
        port: Int, method: String, _ target: String, headers: [String: String] = [:], body: [UInt8] = [],
        timeout: Duration = .seconds(10)
    ) throws -> Response {
        let client = try RawHTTPClient(port: port, timeout: timeout)
        var request = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" { request += "Content-Length: \(body.count)\r\n" }
        try client.send(Array((request + "\r\n").utf8) + body)
        return try client.readResponse(to: method)
    }

    /// One request on a fresh connection.
    public static func get(port: Int, _ target: String, headers: [String: String] = [:]) throws -> Response {
        let client = try RawHTTPClient(port: port)
        var request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        try client.send(request + "\r\n")
        return try client.readResponse()
    }
}

@available(*, unavailable)
extension RawHTTPClient: Sendable {}
