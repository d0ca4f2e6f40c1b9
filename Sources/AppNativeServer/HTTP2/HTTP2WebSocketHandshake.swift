import AppNativeHTTP
internal import CAppNativeOpenSSL
import Foundation

/// The gateway's side of the HTTP/1.1 handshake a WebSocket over HTTP/2 (RFC 8441) becomes
/// toward the upstream: the client sends no `Sec-WebSocket-Key` over HTTP/2 and checks no
/// `Sec-WebSocket-Accept`, so the gateway makes the key and checks the answer itself
/// (RFC 6455 §4.1, §4.2.2); the upstream's 101 becomes the stream's `:status 200`.
struct HTTP2WebSocketHandshake: Equatable {
    /// The key sent to the upstream: 16 random bytes in base64.
    let key: String

    /// A fresh key from OpenSSL's generator; nil if it failed (the stream is then refused).
    static func make() -> HTTP2WebSocketHandshake? {
        var nonce = [UInt8](repeating: 0, count: 16)
        // unsafe: RAND_bytes writes exactly `nonce.count` bytes into `nonce`.
        guard unsafe RAND_bytes(&nonce, Int32(nonce.count)) == 1 else { return nil }
        return HTTP2WebSocketHandshake(key: Data(nonce).base64EncodedString())
    }

    init(key: String) { self.key = key }

    /// RFC 6455 §4.2.2: base64(SHA-1(key + the protocol's GUID)).
    var expectedAccept: String? {
        let input = Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // unsafe: EVP_Digest reads `input.count` bytes of `input` and writes at most
        // EVP_MAX_MD_SIZE bytes into `digest`, which has that size.
        guard unsafe EVP_Digest(input, input.count, &digest, &length, EVP_sha1(), nil) == 1, length == 20 else { return nil }
        return Data(digest.prefix(20)).base64EncodedString()
    }

    /// The stream's answer to the upstream's 101: `200` with the fields the client negotiates
    /// (subprotocol, extensions, cookies), without the HTTP/1.1 handshake's own; nil when the
    /// 101 does not complete this handshake (a wrong or missing `Sec-WebSocket-Accept`).
    func answer(to switching: HTTPResponseHead) -> HTTPResponseHead? {
        guard switching.status == 101, WebSocketHandshake.isAcceptance(switching),
            switching.headers.count(of: "Sec-WebSocket-Accept") == 1,
            let accept = switching.headers.first("Sec-WebSocket-Accept"), let expected = expectedAccept,
            accept == expected
        else { return nil }
        var head = HTTPResponseHead(status: 200, reason: "OK")
        for field in switching.headers {
            let name = field.name
            if HTTPHeaders.nameEquals(name, "Sec-WebSocket-Accept") || HTTPHeaders.nameEquals(name, "Connection")
                || HTTPHeaders.nameEquals(name, "Upgrade") || HTTPHeaders.nameEquals(name, "Content-Length")
                || HTTPHeaders.nameEquals(name, "Transfer-Encoding")
            {
                continue
            }
            head.headers.add(name: name, value: field.value)
        }
        return head
    }
}
