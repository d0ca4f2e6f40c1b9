import AppNativeTesting
import Foundation
import Glibc

// Unsafe (test code): buffers are borrowed with their counts from `withUnsafeBytes` and its
// kin for the call that reads them, and copied before anything outlives it.

/// A SHA-256 of bytes streamed to Tests/Peers/digest_peer.py over one loopback connection, so a
/// test hashes a 1 GiB stream without holding it (AppNativeCrypto has one-shot digests only).
/// Blocking: use inside `blocking {}`.
final class StreamingDigest {
    private let connection: RawHTTPClient
    private(set) var count = 0

    init(port: Int) throws {
        connection = try RawHTTPClient(port: port, timeout: .seconds(30))
    }

    func update(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = unsafe Glibc.send(connection.descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { throw FixtureFailure(description: "digest peer: send failed, errno \(errno)") }
            offset += sent
        }
        count += bytes.count
    }

    func update(_ bytes: [UInt8]) throws {
        unsafe try bytes.withUnsafeBytes { unsafe try update($0) }
    }

    /// Ends the stream and returns the digest (lower-case hex); checks the peer counted every byte.
    func finalize() throws -> String {
        shutdown(connection.descriptor, Int32(SHUT_WR))
        var reply = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let n = unsafe recv(connection.descriptor, &buffer, buffer.count, 0)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            reply += buffer[..<n]
        }
        let fields = String(decoding: reply, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, Int(fields[1]) == count else {
            throw FixtureFailure(description: "digest peer answered \(String(decoding: reply, as: UTF8.self)) for \(count) bytes")
        }
        return String(fields[0])
    }
}
