import AppNativeServer
import Glibc

/// Looks a host name up with getaddrinfo (blocking: called only from an upstream's resolver
/// thread or at start-up, never on an event loop).
enum HostResolver {
    /// The outcome of one lookup: the addresses, or the resolver's reason (never empty on success).
    enum Answer: Sendable, Equatable {
        case addresses([SocketAddress])
        case failed(String)
    }

    /// Every stream address `host` resolves to, with `port`: IPv4 addresses when there are any
    /// (in the resolver's order), else IPv6 ones.
    static func resolve(host: String, port: UInt16) -> Answer {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &result)
        guard status == 0, let first = result else {
            let reason = status == 0 ? "no address" : String(cString: gai_strerror(status))
            return .failed(reason)
        }
        defer { freeaddrinfo(result) }
        var inet4: [SocketAddress] = []
        var inet6: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            var buffer = [CChar](repeating: 0, count: 64)
            if entry.pointee.ai_family == AF_INET, let raw = entry.pointee.ai_addr {
                var address = raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                inet_ntop(AF_INET, &address, &buffer, 64)
                let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                let resolved = SocketAddress(host: text, port: port, family: .inet4)
                if !inet4.contains(resolved) { inet4.append(resolved) }
            } else if entry.pointee.ai_family == AF_INET6, let raw = entry.pointee.ai_addr {
                var address = raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                inet_ntop(AF_INET6, &address, &buffer, 64)
                let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                let resolved = SocketAddress(host: text, port: port, family: .inet6)
                if !inet6.contains(resolved) { inet6.append(resolved) }
            }
            cursor = entry.pointee.ai_next
        }
        let addresses = inet4.isEmpty ? inet6 : inet4
        return addresses.isEmpty ? .failed("no address") : .addresses(addresses)
    }
}
