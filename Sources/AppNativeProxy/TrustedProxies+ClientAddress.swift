extension TrustedProxies {
    /// The client a request comes from, as the forwarding rules see it: the peer, or, when the peer
    /// is a trusted proxy, the rightmost `X-Forwarded-For` hop that is not itself a trusted proxy
    /// (hops further left are whatever the client wrote; the ones a trusted proxy appended are
    /// not). The same list `ForwardingHeaders` keeps from a trusted proxy and replaces from anyone else.
    ///
    /// - Parameters:
    ///   - peer: the connection's remote address.
    ///   - forwardedFor: every `X-Forwarded-For` field value, in order.
    public func clientAddress(peer: String, forwardedFor: [String]) -> String {
        guard contains(peer) else { return peer }
        var client = peer
        for field in forwardedFor.reversed() {
            for hop in field.split(separator: ",").reversed() {
                let address = hop.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()
                guard !address.isEmpty else { continue }
                // Anything but an address (`unknown`, a port) ends the walk: it is what the
                // nearest proxy saw, and it is not trusted.
                // Some proxies (Azure Application Gateway) append the client's port.
                guard let text = Self.addressWithoutPort(String(address)) else { return String(String(address).prefix(64)) }
                client = text
                if !contains(text) { return text }
            }
        }
        return client
    }

    /// The key a per-client limit counts `address` under: an IPv4 address as it is, an IPv6
    /// address by its /64 (one host is usually given a whole /64), an IPv4-mapped IPv6 address
    /// as IPv4; anything that is not an address as its text.
    public static func limitKey(forClientAddress address: String) -> String {
        guard let bytes = addressBytes(address) else { return address }
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        var groups = [String]()
        for index in stride(from: 0, to: 8, by: 2) {
            groups.append(String(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]), radix: 16))
        }
        return groups.joined(separator: ":") + "::/64"
    }

    /// `address` when it is an IP address; the address of `a.b.c.d:port` or `[v6]:port`; else `nil`.
    static func addressWithoutPort(_ address: String) -> String? {
        if addressBytes(address) != nil { return address }
        if address.hasPrefix("["), let close = address.firstIndex(of: "]") {
            let inner = String(address[address.index(after: address.startIndex)..<close])
            return addressBytes(inner) != nil ? inner : nil
        }
        let parts = address.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 2, parts[1].allSatisfy(\.isASCII), UInt16(parts[1]) != nil, addressBytes(String(parts[0])) != nil {
            return String(parts[0])
        }
        return nil
    }
}
