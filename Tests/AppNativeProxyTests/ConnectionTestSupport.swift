@testable import AppNativeProxy
import AppNativeServer

/// A connection as the machines see it: an identity and the address it dialled, no socket.
final class FakeConnection: DialledConnection {
    let address: SocketAddress

    init(_ address: SocketAddress = FakeConnection.a) { self.address = address }

    static let a = SocketAddress(host: "127.0.0.2", port: 8000, family: .inet4)
    static let b = SocketAddress(host: "127.0.0.3", port: 8000, family: .inet4)
}

extension Array where Element == UInt8 {
    init(_ text: String) { self = Array(text.utf8) }
}
