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
        // unsafe: getaddrinfo's list is read only between its success and the deferred freeaddrinfo;
        // each entry's address is rebound to the type its ai_family names, and inet_ntop writes at
        // most 64 bytes (INET6_ADDRSTRLEN is 46) into a 64-byte buffer.
        var hints = unsafe addrinfo()
        unsafe hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = unsafe getaddrinfo(host, nil, &hints, &result)
        guard status == 0, let first = unsafe result else {
            let reason = unsafe status == 0 ? "no address" : String(cString: gai_strerror(status))
            return .failed(reason)
        }
        defer { unsafe freeaddrinfo(result) }
        var inet4: [SocketAddress] = []
        var inet6: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = unsafe first
        while let entry = unsafe cursor {
            var buffer = [CChar](repeating: 0, count: 64)
            if unsafe entry.pointee.ai_family == AF_INET, let raw = unsafe entry.pointee.ai_addr {
                var address = unsafe raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { unsafe $0.pointee.sin_addr }
                unsafe inet_ntop(AF_INET, &address, &buffer, 64)
                let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                let resolved = SocketAddress(host: text, port: port, family: .inet4)
                if !inet4.contains(resolved) { inet4.append(resolved) }
            } else if unsafe entry.pointee.ai_family == AF_INET6, let raw = unsafe entry.pointee.ai_addr {
                var address = unsafe raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { unsafe $0.pointee.sin6_addr }
                unsafe inet_ntop(AF_INET6, &address, &buffer, 64)
                let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                let resolved = SocketAddress(host: text, port: port, family: .inet6)
                if !inet6.contains(resolved) { inet6.append(resolved) }
            }
            unsafe cursor = unsafe entry.pointee.ai_next
        }
        let addresses = inet4.isEmpty ? inet6 : inet4
        return addresses.isEmpty ? .failed("no address") : .addresses(addresses)
    }
}
