import AppNativeServer
import Glibc

/// The `TRUSTED_PROXIES` CIDR list: forwarding headers from these peers are extended; from
/// anyone else they are replaced, so a client cannot claim another address or scheme.
public struct TrustedProxies: Sendable {
    private struct Network: Sendable {
        var bytes: [UInt8]
        var prefixLength: Int
    }

    private let networks: [Network]

    public struct InvalidCIDR: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    public static let none = TrustedProxies(networks: [])

    private init(networks: [Network]) {
        self.networks = networks
    }

    /// Parses `10.0.0.0/8, 192.168.1.10, ::1/128`.
    public init(parsing list: String) throws(InvalidCIDR) {
        var networks = [Network]()
        for item in list.split(separator: ",") {
            let text = item.trimmingCharacters(in: " \t")
            guard !text.isEmpty else { continue }
            // Not `split`: it drops empty pieces, so `/` alone would have no address part at all.
            let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let bytes = Self.addressBytes(String(parts[0])) else {
                throw InvalidCIDR(description: "not an IP address: \(text)")
            }
            let prefix = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
            guard let prefix, (0...bytes.count * 8).contains(prefix) else {
                throw InvalidCIDR(description: "bad prefix length: \(text)")
            }
            networks.append(Network(bytes: bytes, prefixLength: prefix))
        }
        self.networks = networks
    }

    public func contains(_ host: String) -> Bool {
        guard !networks.isEmpty, let bytes = Self.addressBytes(host) else { return false }
        return networks.contains { network in
            guard network.bytes.count == bytes.count else { return false }
            var remaining = network.prefixLength
            for index in 0..<bytes.count where remaining > 0 {
                let bits = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if bytes[index] & mask != network.bytes[index] & mask { return false }
                remaining -= bits
            }
            return true
        }
    }

    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        // unsafe: inet_pton writes one in_addr (in6_addr) into the local it is given; its bytes are
        // copied out inside withUnsafeBytes.
        if unsafe inet_pton(AF_INET, text, &v4) == 1 { return unsafe withUnsafeBytes(of: &v4) { unsafe Array($0) } }
        var v6 = in6_addr()
        if unsafe inet_pton(AF_INET6, text, &v6) == 1 {
            let bytes = unsafe withUnsafeBytes(of: &v6) { unsafe Array($0) }
            // IPv4-mapped IPv6 (::ffff:a.b.c.d) compares as IPv4.
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return Array(bytes[12...]) }
            return bytes
        }
        return nil
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var slice = self[...]
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
