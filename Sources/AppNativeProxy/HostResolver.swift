import AppNativeServer
import Glibc

/// Resolves `host:port` once at start-up (getaddrinfo); the proxy never resolves per request.
enum HostResolver {
    static func resolve(_ hostPort: String) -> SocketAddress? {
        guard let colon = hostPort.lastIndex(of: ":"), let port = UInt16(hostPort[hostPort.index(after: colon)...]) else {
            return nil
        }
        let host = String(hostPort[..<colon])
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result else { return nil }
        defer { freeaddrinfo(result) }
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            var buffer = [CChar](repeating: 0, count: 64)
            if entry.pointee.ai_family == AF_INET, let raw = entry.pointee.ai_addr {
                var address = raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                inet_ntop(AF_INET, &address, &buffer, 64)
                let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                return SocketAddress(host: text, port: port, family: .inet4)
            }
            cursor = entry.pointee.ai_next
        }
        return nil
    }
}
