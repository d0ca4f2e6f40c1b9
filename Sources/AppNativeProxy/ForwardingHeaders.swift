public import AppNativeHTTP
public import AppNativeServer

/// `X-Forwarded-For`/`-Proto`/`-Host` and `Forwarded` (RFC 7239) for the upstream request.
///
/// From a trusted proxy the incoming values are kept and extended; from anyone else they are
/// replaced, so a client cannot claim another address, scheme or host.
public enum ForwardingHeaders: Sendable {
    public static let names = ["X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host", "Forwarded", "X-Real-IP"]
    private static let nameBytes = names.map { Array($0.utf8) }

    /// - Parameter host: the Host the request is forwarded with (from an absolute-form target's
    ///   authority, else the received Host).
    public static func apply(
        to headers: inout HTTPHeaders,
        original: HTTPHeaders,
        peer: SocketAddress?,
        isSecure: Bool,
        trusted: TrustedProxies,
        host requestHost: String?
    ) {
        let peerHost = peer?.host ?? "unknown"
        let isTrusted = trusted.contains(peerHost)
        let incomingFor = isTrusted ? original.values("X-Forwarded-For").joined(separator: ", ") : ""
        let incomingForwarded = isTrusted ? original.values("Forwarded").joined(separator: ", ") : ""
        let proto = isTrusted ? (original.first("X-Forwarded-Proto") ?? (isSecure ? "https" : "http")) : (isSecure ? "https" : "http")
        // The host the request is for: an absolute-form target's authority wins over Host (RFC 9112 §3.2.2).
        let host = isTrusted ? (original.first("X-Forwarded-Host") ?? requestHost) : requestHost
        headers.remove(anyOf: nameBytes)
        headers.add(name: "X-Forwarded-For", value: incomingFor.isEmpty ? peerHost : incomingFor + ", " + peerHost)
        headers.add(name: "X-Forwarded-Proto", value: proto)
        if let host { headers.add(name: "X-Forwarded-Host", value: host) }
        // Composed as bytes in a stack buffer and added as bytes: `String` appends and `a + b`
        // temporaries cost an allocation or a slow path each, several per request. Every byte
        // of our element is ASCII (an IP address, a scheme, a checked host).
        let capacity = 40 + peerHost.utf8.count + proto.utf8.count + (host?.utf8.count ?? 0)
        // unsafe: the buffer and every pointer into it (the writer's, `written`) live only inside
        // this closure; the writer checks each append against the capacity computed above.
        unsafe withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var element = unsafe ElementWriter(buffer: buffer)
            element.append("for=")
            if peer?.family == .inet6 {
                element.append("\"[")
                element.append(peerHost)
                element.append("]\"")
            } else {
                element.append(peerHost)
            }
            element.append(";proto=")
            element.append(proto)
            if let host {
                switch forwardedHostForm(host) {
                case .token:
                    element.append(";host=")
                    element.append(host)
                case .quoted:
                    element.append(";host=\"")
                    element.append(host)
                    element.append("\"")
                case .unusable:
                    break
                }
            }
            let written = unsafe UnsafeBufferPointer(rebasing: buffer[..<element.count])
            if incomingForwarded.isEmpty {
                unsafe headers.add(name: "Forwarded", valueBytes: written)
            } else {
                // Behind a trusted proxy: its elements are Latin-1 text, added through the string path.
                unsafe headers.add(name: "Forwarded", value: incomingForwarded + ", " + String(decoding: written, as: UTF8.self))
            }
        }
    }

    /// Appends ASCII text into a buffer sized for it in advance.
    // Safe to use: it lives only inside the temporary allocation's closure, and `append` checks
    // every write against the buffer's bounds.
    @safe private struct ElementWriter {
        let buffer: UnsafeMutableBufferPointer<UInt8>
        var count = 0

        mutating func append(_ text: String) {
            var text = text
            // unsafe: the UTF-8 view is valid inside withUTF8 and copied before it returns.
            text.withUTF8 { unsafe append($0) }
        }

        mutating func append(_ text: StaticString) {
            // unsafe: a StaticString's UTF-8 is immortal, utf8CodeUnitCount bytes long.
            unsafe append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }

        private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
            // unsafe: the bounds check itself makes the initialisation below stay inside `buffer`.
            unsafe precondition(count + bytes.count <= buffer.count, "Forwarded element larger than its buffer")
            _ = unsafe UnsafeMutableBufferPointer(rebasing: buffer[count...]).initialize(fromContentsOf: bytes)
            count += bytes.count
        }
    }

    private enum HostForm {
        case token, quoted, unusable
    }

    /// How `host` goes into a `Forwarded` element: as a token, quoted (it has a `:`), or not at all
    /// when it holds anything but ASCII without White_Space (09–0D, 20), quote, `;` or `,` (the
    /// set a Character test would refuse: a CRLF grapheme is whitespace, any non-ASCII Character
    /// is refused). Bytes, not Characters: no grapheme breaking or Unicode lookups per request.
    private static func forwardedHostForm(_ host: String) -> HostForm {
        var host = host
        return host.withUTF8 { bytes in
            var form = HostForm.token
            // unsafe: iterates the string's UTF-8 storage, valid inside withUTF8.
            for unsafe byte in unsafe bytes {
                switch byte {
                case 0x80...0xFF, 0x09...0x0D, 0x20, 0x22, 0x3B, 0x2C: return .unusable
                case UInt8(ascii: ":"): form = .quoted
                default: continue
                }
            }
            return form
        }
    }
}
