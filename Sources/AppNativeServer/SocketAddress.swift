internal import CAppNativeLinux
import Glibc

/// An IPv4 or IPv6 address and port, parsed from `host:port` / `[v6]:port` configuration values.
///
/// Unsafe: the Glibc address calls (`inet_pton`, `inet_ntop`, `connect`, the sockaddr rebinding)
/// each get a local `in_addr`/`in6_addr`/`sockaddr_in`/`sockaddr_in6`/`sockaddr_storage` or buffer
/// of the size they write, with that size passed beside it, and no pointer outlives its call.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    public enum Family: Sendable, Hashable { case inet4, inet6 }

    public let host: String
    public let port: UInt16
    public let family: Family

    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Parses `0.0.0.0:8080`, `127.0.0.1:0`, `[::1]:9090`, `[::]:8080`, `localhost:8080`.
    public init(parsing text: String) throws(ParseError) {
        var host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw ParseError(description: "expected [ipv6]:port, got \(text)")
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw ParseError(description: "expected host:port, got \(text)") }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard let port = UInt16(portText) else { throw ParseError(description: "invalid port in \(text)") }
        if host == "localhost" { host = "127.0.0.1" }
        var probe4 = in_addr()
        var probe6 = in6_addr()
        if unsafe inet_pton(AF_INET, String(host), &probe4) == 1 {
            family = .inet4
        } else if unsafe inet_pton(AF_INET6, String(host), &probe6) == 1 {
            family = .inet6
        } else {
            throw ParseError(description: "host must be an IP address (or localhost): \(text)")
        }
        self.host = String(host)
        self.port = port
    }

    public init(host: String, port: UInt16, family: Family) {
        self.host = host
        self.port = port
        self.family = family
    }

    public var description: String { family == .inet6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Calls `body` with the C socket address.
    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        switch family {
        case .inet4:
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            unsafe inet_pton(AF_INET, host, &address.sin_addr)
            return unsafe withUnsafePointer(to: &address) {
                unsafe $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { unsafe body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        case .inet6:
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            unsafe inet_pton(AF_INET6, host, &address.sin6_addr)
            return unsafe withUnsafePointer(to: &address) {
                unsafe $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { unsafe body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
    }

    /// `connect(2)` of a socket to this address (for modules that open their own sockets).
    public func connect(_ fd: Int32) -> Int32 {
        unsafe withSockAddr { unsafe Glibc.connect(fd, $0, $1) }
    }

    /// Reads an address filled in by accept/getsockname/getpeername.
    init?(storage: sockaddr_storage) {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let address = unsafe withUnsafePointer(to: &storage) { unsafe $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { unsafe $0.pointee } }
            var buffer = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            var raw = address.sin_addr
            unsafe inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count))
            self.init(host: String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), port: UInt16(bigEndian: address.sin_port), family: .inet4)
        case AF_INET6:
            let address = unsafe withUnsafePointer(to: &storage) { unsafe $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { unsafe $0.pointee } }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            var raw = address.sin6_addr
            unsafe inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count))
            self.init(host: String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), port: UInt16(bigEndian: address.sin6_port), family: .inet6)
        default:
            return nil
        }
    }
}
