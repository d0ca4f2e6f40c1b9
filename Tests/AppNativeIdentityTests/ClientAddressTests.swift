import AppNativeProxy
import Testing

/// The client address a per-client limit counts: the peer, or from a trusted proxy the rightmost
/// untrusted `X-Forwarded-For` hop.
@Suite("Client address")
struct ClientAddressTests {
    @Test("X-Forwarded-For counts only from a trusted proxy, walked from the right past trusted hops")
    func resolution() throws {
        let trusted = try TrustedProxies(parsing: "10.0.0.0/8, ::1")
        #expect(trusted.clientAddress(peer: "203.0.113.5", forwardedFor: ["198.51.100.1"]) == "203.0.113.5")
        #expect(trusted.clientAddress(peer: "10.0.0.2", forwardedFor: []) == "10.0.0.2")
        #expect(trusted.clientAddress(peer: "10.0.0.2", forwardedFor: ["198.51.100.1"]) == "198.51.100.1")
        // The client wrote the left entries; the proxy appended the right one.
        #expect(trusted.clientAddress(peer: "10.0.0.2", forwardedFor: ["1.2.3.4, 198.51.100.1"]) == "198.51.100.1")
        #expect(trusted.clientAddress(peer: "10.0.0.2", forwardedFor: ["1.2.3.4", "198.51.100.1, 10.0.0.9"]) == "198.51.100.1")
        #expect(trusted.clientAddress(peer: "::1", forwardedFor: ["10.0.0.3 , 10.0.0.4"]) == "10.0.0.3")
        #expect(trusted.clientAddress(peer: "10.0.0.2", forwardedFor: ["1.2.3.4, unknown"]) == "unknown")
        // A port some proxies append is not part of the client.
        #expect(trusted.clientAddress(peer: "10.0.0.2", forwardedFor: ["198.51.100.1:51234"]) == "198.51.100.1")
        #expect(trusted.clientAddress(peer: "10.0.0.2", forwardedFor: ["[2001:db8::1]:443"]) == "2001:db8::1")
        #expect(trusted.clientAddress(peer: "10.0.0.2", forwardedFor: ["2001:db8::1"]) == "2001:db8::1")
    }

    @Test("limit keys: IPv4 as it is, IPv6 by its /64, IPv4-mapped as IPv4")
    func keys() {
        #expect(TrustedProxies.limitKey(forClientAddress: "198.51.100.7") == "198.51.100.7")
        #expect(TrustedProxies.limitKey(forClientAddress: "2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64")
        #expect(TrustedProxies.limitKey(forClientAddress: "2001:db8:1:2:bbbb::9") == "2001:db8:1:2::/64")
        #expect(TrustedProxies.limitKey(forClientAddress: "::ffff:192.0.2.1") == "192.0.2.1")
        #expect(TrustedProxies.limitKey(forClientAddress: "unknown") == "unknown")
    }
}
