// Unsafe (pointer scanning on the request path): every function reads only inside the buffer or
// the `start..<end` range it is given, checking the index before each read, and the buffer is
// borrowed by its caller (a parser's input, a field's bytes in HTTPHeaders) for the call; nothing
// keeps a pointer past it. See docs/memory-safety.md.

/// The connection-specific fields a proxy must not forward (RFC 9110 §7.6.1).
///
/// Removed: Connection and every field it names, Keep-Alive, Proxy-Connection, TE, Trailer,
/// Transfer-Encoding, Upgrade, and every `Proxy-*` field (Proxy-Authenticate and
/// Proxy-Authorization are meant for this hop only, RFC 9110 §11.7). Fields the gateway adds
/// itself must be added after this removal, so a client cannot name them in Connection to have
/// them stripped downstream.
public enum HopByHopHeaders: Sendable {
    /// The fixed hop-by-hop names, lower case; `Proxy-*` fields are matched by prefix.
    public static let names: [String] = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
    ]

    /// Whether `name` is hop-by-hop on its own, without being named in Connection.
    /// - Parameter name: a field name, any case.
    public static func isHopByHop(_ name: String) -> Bool {
        unsafe HTTPHeaders.withBytes(of: name) { unsafe isHopByHop($0) }
    }

    /// Removes the hop-by-hop fields and every field named in a Connection field.
    ///
    /// - Parameters:
    ///   - headers: the fields to clean.
    ///   - keepingWebSocketUpgrade: keep `Upgrade` when it is exactly `websocket` and Connection
    ///     lists `upgrade` (RFC 6455 §4.1), and write `Connection: upgrade` back. Any other
    ///     upgrade, such as `h2c`, is removed: forwarding it would hand the client a raw tunnel
    ///     to the upstream that bypasses per-request checks.
    /// - Returns: whether a WebSocket upgrade was kept.
    @discardableResult
    public static func remove(from headers: inout HTTPHeaders, keepingWebSocketUpgrade: Bool = false) -> Bool {
        // Most requests carry no hop-by-hop field at all (HTTP/1.1 keep-alive is the default):
        // then there is nothing to remove and no reason to copy the field list. `Connection`
        // is itself hop-by-hop, so without one no field can be named by it either.
        let found = unsafe headers.bytes.withUnsafeBufferPointer { storage in
            unsafe scan(storage, headers.entries)
        }
        switch found {
        case .none:
            return false
        case .onlyPlainConnection:
            // The usual keep-alive hop (`Connection: keep-alive` from browsers and nginx): the
            // Connection fields are all there is to remove, in place.
            unsafe headers.removeAll(whereName: unsafe isConnection)
            return false
        case .other:
            break
        }
        let (kept, keptUpgrade) = unsafe filter(headers, keepingWebSocketUpgrade: keepingWebSocketUpgrade) { _, _ in .applyRules }
        headers = kept
        return keptUpgrade
    }

    private enum Found {
        /// No hop-by-hop field at all.
        case none
        /// Only Connection fields listing nothing but `keep-alive` and `close`, and no field
        /// those name (`Keep-Alive` is hop-by-hop itself; a field named `close` is looked for).
        case onlyPlainConnection
        /// Anything else: the full rules.
        case other
    }

    private static func scan(_ storage: UnsafeBufferPointer<UInt8>, _ entries: [HTTPHeaders.Entry]) -> Found {
        var found = Found.none
        for entry in entries {
            let name = unsafe HTTPHeaders.nameBytes(storage, entry)
            if unsafe name.count == 5 && equalsLowercase(name, "close") { return .other }
            guard unsafe isHopByHop(name) else { continue }
            guard unsafe isConnection(name) else { return .other }
            var plain = true
            unsafe ListElements.forEach(in: HTTPHeaders.valueBytes(storage, entry)) { element in
                plain = unsafe equalsLowercase(element, "keep-alive") || equalsLowercase(element, "close")
                return plain
            }
            guard plain else { return .other }
            found = .onlyPlainConnection
        }
        return found
    }

    /// What a caller of `filter` decides about one field before the hop-by-hop rules apply.
    enum Decision {
        case keep, remove, applyRules
    }

    /// `headers` without hop-by-hop fields and without fields Connection names, except where
    /// `decide` says otherwise; `Connection: upgrade` is appended when a WebSocket upgrade is
    /// kept. One pass; the byte buffer is shared, not copied.
    static func filter(
        _ headers: HTTPHeaders,
        keepingWebSocketUpgrade: Bool,
        reservingFields extraFields: Int = 0,
        decide: (_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> Decision
    ) -> (HTTPHeaders, keptUpgrade: Bool) {
        let keepsUpgrade =
            keepingWebSocketUpgrade
            && headers.containsToken("upgrade", inField: "Connection")
            && headers.count(of: "Upgrade") == 1
            && isWebSocket(headers.first("Upgrade") ?? "")
        let connections = unsafe headers.bytes.withUnsafeBufferPointer { storage in
            headers.entries.filter { unsafe isConnection(HTTPHeaders.nameBytes(storage, $0)) }
        }
        var result = unsafe headers.filtered(reservingFields: extraFields) { storage, entry in
            let name = unsafe HTTPHeaders.nameBytes(storage, entry)
            switch unsafe decide(name, HTTPHeaders.valueBytes(storage, entry)) {
            case .keep: return true
            case .remove: return false
            case .applyRules: break
            }
            if unsafe keepsUpgrade && equalsLowercase(name, "upgrade") { return true }
            if unsafe isHopByHop(name) { return false }
            for connection in connections {
                var isNamed = false
                unsafe ListElements.forEach(in: HTTPHeaders.valueBytes(storage, connection)) { element in
                    isNamed = unsafe HTTPHeaders.equalsIgnoringCase(element, name)
                    return !isNamed
                }
                if isNamed { return false }
            }
            return true
        }
        if keepsUpgrade { result.add(name: "Connection", value: "upgrade") }
        return (result, keepsUpgrade)
    }

    /// The RFC 9110 §7.6.1 names and the `proxy-` prefix, by length first.
    static func isHopByHop(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        if unsafe name.count >= 6 && equalsLowercase(UnsafeBufferPointer(rebasing: name[0..<6]), "proxy-") { return true }
        switch name.count {
        case 2: return unsafe equalsLowercase(name, "te")
        case 7: return unsafe equalsLowercase(name, "trailer") || equalsLowercase(name, "upgrade")
        case 10: return unsafe equalsLowercase(name, "connection") || equalsLowercase(name, "keep-alive")
        case 17: return unsafe equalsLowercase(name, "transfer-encoding")
        default: return false
        }
    }

    private static func isConnection(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        unsafe name.count == 10 && equalsLowercase(name, "connection")
    }

    /// `bytes` equals the lower-case ASCII `literal`, ignoring case.
    static func equalsLowercase(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        for index in 0..<bytes.count where unsafe ByteClass.lowercased(bytes[index]) != literal.utf8Start[index] {
            return false
        }
        return true
    }

    /// Whether an Upgrade value is the single protocol `websocket`.
    private static func isWebSocket(_ value: String) -> Bool {
        var count = 0
        var isWebSocket = false
        unsafe ListElements.forEach(in: value) { element in
            count += 1
            isWebSocket = unsafe ListElements.equalsIgnoringCase(element, "websocket")
            return true
        }
        return count == 1 && isWebSocket
    }
}
