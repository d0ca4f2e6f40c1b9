import AppNativeHTTP

/// Turns a request's HTTP/2 header block into the request head an HTTP/1.1 client would have
/// sent, through the same parser: a stream is held to every rule of an HTTP/1.1 request (allowed
/// methods, target form, Host syntax, one Authorization, field syntax, the header and body
/// limits), and the HTTP/2 rules of RFC 9113 §8.3 are checked first.
///
/// An extended CONNECT with `:protocol: websocket` (RFC 8441 §4, §5) becomes the HTTP/1.1
/// WebSocket upgrade request (`GET` with `Connection: upgrade`, `Upgrade: websocket`), so that
/// it meets every rule an upgrade meets over HTTP/1.1 (the Origin rule, authentication, policy)
/// and reaches the upstream as one. Its `Sec-WebSocket-Key` is the gateway's own, added by the
/// connection (`HTTP2WebSocketHandshake`).
enum HTTP2RequestHead {
    /// The protocol version the exchange reports.
    static let version = HTTPVersion(major: 2, minor: 0)

    /// Why a header block does not become an exchange.
    enum Refusal: Error, Hashable {
        /// Malformed (RFC 9113 §8.1.1): a stream error of type PROTOCOL_ERROR; never answered.
        case malformed(String)
        /// Well-formed HTTP/2 that HTTP/1.1's rules refuse: answered with this status, as over
        /// HTTP/1.1 (400, 405, 413, 414, 431, 501).
        case answer(status: Int)
    }

    /// Fields that only mean something to one HTTP/1.1 connection (RFC 9113 §8.2.2).
    private static let connectionSpecific: Set<[UInt8]> = [
        Array("connection".utf8), Array("keep-alive".utf8), Array("proxy-connection".utf8),
        Array("transfer-encoding".utf8), Array("upgrade".utf8),
    ]

    /// What a stream's header block asks for.
    enum Request: Equatable {
        /// A request with its body framing.
        case exchange(HTTPRequestHead, HTTPBodyFraming)
        /// An extended CONNECT for a WebSocket (RFC 8441): the upgrade request it stands for;
        /// after the answer, DATA frames carry WebSocket frames both ways.
        case webSocket(HTTPRequestHead)
    }

    /// - Parameters:
    ///   - fields: the decoded block, pseudo-header fields first.
    ///   - endsStream: the HEADERS frame carried END_STREAM (no body follows).
    ///   - limits: the HTTP/1.1 limits, which apply unchanged.
    static func make(_ fields: [HTTP2Field], endsStream: Bool, limits: HTTPLimits) -> Result<Request, Refusal> {
        var method: [UInt8]?
        var scheme: [UInt8]?
        var path: [UInt8]?
        var authority: [UInt8]?
        var connectProtocol: [UInt8]?
        var cookies: [[UInt8]] = []
        var regular: [HTTP2Field] = []
        var seenRegular = false
        for field in fields {
            if field.isPseudoHeader {
                guard !seenRegular else { return .failure(.malformed("pseudo-header field after a regular field")) }
                switch field.name {
                case Array(":method".utf8) where method == nil: method = field.value
                case Array(":scheme".utf8) where scheme == nil: scheme = field.value
                case Array(":path".utf8) where path == nil: path = field.value
                case Array(":authority".utf8) where authority == nil: authority = field.value
                case Array(":protocol".utf8) where connectProtocol == nil: connectProtocol = field.value
                default: return .failure(.malformed("unknown or repeated pseudo-header field"))
                }
                continue
            }
            seenRegular = true
            guard !field.name.isEmpty, !field.name.contains(where: { (0x41...0x5A).contains($0) }) else {
                return .failure(.malformed("field name with uppercase letters"))
            }
            if connectionSpecific.contains(field.name) { return .failure(.malformed("connection-specific field")) }
            if field.name == Array("te".utf8) && field.value != Array("trailers".utf8) {
                return .failure(.malformed("te other than trailers"))
            }
            if field.name == Array("cookie".utf8) {
                cookies.append(field.value)
            } else {
                regular.append(field)
            }
        }
        let isWebSocket: Bool
        switch (method == Array("CONNECT".utf8), connectProtocol) {
        case (false, nil):
            isWebSocket = false
        case (false, _?):
            // RFC 8441 §4: :protocol belongs to CONNECT only.
            return .failure(.malformed(":protocol on a method other than CONNECT"))
        case (true, nil):
            // CONNECT (RFC 9113 §8.5: no :scheme, no :path) is not served, as over HTTP/1.1.
            return .failure(.answer(status: 501))
        case (true, let name?):
            // RFC 8441 §4: an extended CONNECT carries :scheme, :path and :authority.
            guard scheme != nil, path != nil, authority != nil else {
                return .failure(.malformed("extended CONNECT without :scheme, :path or :authority"))
            }
            // The one protocol served over a tunnel; others are not implemented, as a CONNECT is not.
            guard name == Array("websocket".utf8) else { return .failure(.answer(status: 501)) }
            // RFC 8441 §5 keeps RFC 6455's version field; the upgrade it becomes needs it.
            guard regular.filter({ $0.name == Array("sec-websocket-version".utf8) }).map(\.value) == [Array("13".utf8)] else {
                return .failure(.answer(status: 400))
            }
            // The key is the gateway's (RFC 8441 §5: none is sent over HTTP/2); the HTTP/1.1
            // upgrade fields are added below, never taken from the client.
            regular.removeAll { $0.name == Array("sec-websocket-key".utf8) }
            regular.append(HTTP2Field("connection", "upgrade"))
            regular.append(HTTP2Field("upgrade", "websocket"))
            isWebSocket = true
        }
        guard let method, let scheme, let path else {
            return .failure(.malformed("missing :method, :scheme or :path"))
        }
        guard scheme == Array("https".utf8) || scheme == Array("http".utf8) else {
            return .failure(.malformed(":scheme is neither http nor https"))
        }
        guard !path.isEmpty else { return .failure(.malformed("empty :path")) }
        if let authority {
            // RFC 9113 §8.3.1: Host and :authority must name the same entity.
            for field in regular where field.name == Array("host".utf8) {
                guard equalsIgnoringCase(field.value, authority) else { return .failure(.answer(status: 400)) }
            }
        }
        let hasHost = regular.contains { $0.name == Array("host".utf8) }

        var text: [UInt8] = []
        text.reserveCapacity(256)
        text += isWebSocket ? Array("GET".utf8) : method
        text.append(UInt8(ascii: " "))
        text += path
        text += Array(" HTTP/1.1\r\n".utf8)
        if let authority, !hasHost {
            text += Array("host: ".utf8)
            text += authority
            text += [13, 10]
        }
        for field in regular {
            text += field.name
            text += [UInt8(ascii: ":"), UInt8(ascii: " ")]
            text += field.value
            text += [13, 10]
        }
        if !cookies.isEmpty {
            // RFC 9113 §8.2.3: the crumbs become one field before an HTTP/1.1 context sees them.
            text += Array("cookie: ".utf8)
            for (index, cookie) in cookies.enumerated() {
                if index > 0 { text += [UInt8(ascii: ";"), UInt8(ascii: " ")] }
                text += cookie
            }
            text += [13, 10]
        }
        text += [13, 10]

        var parser = HTTPRequestParser(limits: limits)
        // unsafe: the parser reads the borrowed bytes inside the closure only and keeps no pointer.
        let step = unsafe text.withUnsafeBytes { bytes -> Result<HTTPParserEvent<HTTPRequestHead>?, HTTPParseError> in
            do throws(HTTPParseError) {
                return unsafe .success(try parser.parse(bytes).event)
            } catch {
                return .failure(error)
            }
        }
        var head: HTTPRequestHead
        var framing: HTTPBodyFraming
        switch step {
        case .success(.head(let parsedHead, let parsedFraming)?):
            head = parsedHead
            framing = parsedFraming
        case .success:
            return .failure(.answer(status: 400))
        case .failure(let error):
            return .failure(.answer(status: error.status))
        }
        head.version = version
        if isWebSocket {
            // No request body: DATA frames are the tunnel's bytes once the answer is sent.
            guard framing == .none || framing == .contentLength(0) else { return .failure(.answer(status: 400)) }
            return .success(.webSocket(head))
        }
        switch framing {
        case .none where !endsStream:
            // A body of unknown length: DATA frames until END_STREAM.
            framing = .chunked
        case .contentLength(let length) where endsStream && length > 0:
            return .failure(.malformed("content-length without DATA"))
        case .chunked, .untilClose:
            // Refused above (transfer-encoding is connection-specific).
            return .failure(.malformed("transfer coding"))
        default:
            break
        }
        return .success(.exchange(head, framing))
    }

    private static func equalsIgnoringCase(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (left, right) in zip(lhs, rhs) where left | 0x20 != right | 0x20 || !isLetter(left) && left != right {
            return false
        }
        return true
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
}
