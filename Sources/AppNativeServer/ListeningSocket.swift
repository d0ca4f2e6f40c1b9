internal import CAppNativeLinux
import Glibc

/// A bound, listening, non-blocking TCP socket. With `reusePort`, each event loop binds its own
/// socket to the same address and the kernel spreads connections across them (SO_REUSEPORT).
public final class ListeningSocket: @unchecked Sendable {
    // Immutable after init; accept(2) on a shared listening fd is thread-safe in the kernel.
    public let fd: Int32
    /// The bound address (with the real port when port 0 was asked for).
    public let address: SocketAddress

    public init(binding requested: SocketAddress, reusePort: Bool, backlog: Int32 = 1024) throws(SystemCallError) {
        let fd = try SystemCallError.check(
            appnative_socket_stream(requested.family == .inet4 ? AF_INET : AF_INET6),
            "socket"
        )
        do {
            try SystemCallError.check(appnative_set_reuse(fd, reusePort ? 1 : 0), "setsockopt(SO_REUSEPORT)")
            // unsafe: bind reads the sockaddr `withSockAddr` lends, with its length, during the call.
            unsafe try SystemCallError.check(requested.withSockAddr { unsafe bind(fd, $0, $1) }, "bind(\(requested))")
            try SystemCallError.check(listen(fd, backlog), "listen")
        } catch {
            Glibc.close(fd)
            throw error
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        // unsafe: getsockname writes at most `length` bytes into `storage`, a sockaddr_storage.
        _ = unsafe withUnsafeMutablePointer(to: &storage) {
            unsafe $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { unsafe getsockname(fd, $0, &length) }
        }
        self.fd = fd
        address = SocketAddress(storage: storage) ?? requested
    }

    /// Accepts one pending connection: `nil` when none is pending.
    public func accept() throws(SystemCallError) -> (fd: Int32, peer: SocketAddress?)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        // unsafe: accept writes at most `length` bytes into `storage`, a sockaddr_storage.
        let client = unsafe appnative_accept(fd, &storage, &length)
        if client < 0 {
            if SystemCallError.isWouldBlock { return nil }
            try SystemCallError.check(client, "accept4")
        }
        _ = appnative_set_nodelay(client)
        return (client, SocketAddress(storage: storage))
    }

    public func close() {
        Glibc.close(fd)
    }
}
