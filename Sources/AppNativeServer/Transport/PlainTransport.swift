internal import CAppNativeLinux
import Glibc

/// Plain TCP with `recv`/`send(MSG_NOSIGNAL)`.
package final class PlainTransport: ConnectionTransport {
    private let fd: Int32

    package init(fd: Int32) { self.fd = fd }

    package var shortReadDrainsSocket: Bool { true }

    package var selectedHTTP2: Bool { false }

    package func receive(into buffer: UnsafeMutableRawBufferPointer) -> TransportResult {
        while true {
            // unsafe: recv writes at most `buffer.count` bytes into the caller's buffer.
            let received = unsafe recv(fd, buffer.baseAddress, buffer.count, 0)
            if received > 0 { return .transferred(received) }
            if received == 0 { return .closed }
            let code = appnative_errno()
            if code == appnative_eintr { continue }
            return code == appnative_eagain ? .wouldBlock : .failed
        }
    }

    package func send(_ bytes: UnsafeRawBufferPointer) -> TransportResult {
        // unsafe: send reads at most `bytes.count` bytes of the caller's buffer.
        let sent = unsafe appnative_send(fd, bytes.baseAddress, bytes.count)
        if sent >= 0 { return .transferred(sent) }
        return appnative_errno() == appnative_eagain ? .wouldBlock : .failed
    }

    package func shutdown() -> TransportResult { .transferred(0) }
}
