// Unsafe (pointer scanning on the request path): every function reads only inside the buffer or
// the `start..<end` range it is given, checking the index before each read, and the buffer is
// borrowed by its caller (a parser's input, a field's bytes in HTTPHeaders) for the call; nothing
// keeps a pointer past it. See docs/memory-safety.md.

extension HTTPRequestHead {
    /// The head a reverse proxy sends upstream for this request.
    ///
    /// - HTTP/1.1, whatever version was received (RFC 9110 §7.6.3: a proxy sends its own version).
    /// - An absolute-form target becomes origin-form, and Host is generated from its authority,
    ///   ignoring the received Host (RFC 9112 §3.2.2); otherwise the first received Host is
    ///   kept, or `fallbackHost` is used when there was none (HTTP/1.0). Host is the first field
    ///   and appears once.
    /// - Hop-by-hop fields and the fields Connection names are removed (`HopByHopHeaders`).
    /// - Fields whose names contain "_" are removed: some back ends map "_" to "-", so
    ///   `Transfer_Encoding` or `X_Forwarded_User` would turn into a framing or identity field
    ///   the gateway never checked.
    /// - Framing is normalised: exactly one field describes `framing`, `Content-Length: <decimal
    ///   without leading zeros>` or `Transfer-Encoding: chunked` (`untilClose` is re-chunked),
    ///   and none for `.none`. A received field already in that form is kept in place; every
    ///   other Content-Length and Transfer-Encoding is removed.
    ///
    /// Unchanged fields keep sharing the parsed bytes, so forwarding a typical request copies
    /// no field data. Identity fields the gateway injects must be added to the result, never to
    /// `self`.
    /// - Parameters:
    ///   - framing: how the body will be sent upstream (usually what the parser reported).
    ///   - fallbackHost: the Host to send when the request carried none.
    ///   - keepingWebSocketUpgrade: see `HopByHopHeaders.remove(from:keepingWebSocketUpgrade:)`.
    ///   - extraFields: how many fields the caller will add (the forwarding fields, identity): the
    ///     new field list is made that large at once, not copied and then grown.
    ///   - extraBytes: how many name and value bytes those fields will hold.
    public func forwardingHead(
        framing: HTTPBodyFraming,
        fallbackHost: String,
        keepingWebSocketUpgrade: Bool = false,
        extraFields: Int = 0,
        extraBytes: Int = 0
    ) -> HTTPRequestHead {
        let absolute = absoluteFormParts()
        var hasHost = false
        var hasFramingField = false
        var (headers, _) = unsafe HopByHopHeaders.filter(
            self.headers, keepingWebSocketUpgrade: keepingWebSocketUpgrade, reservingFields: extraFields
        ) { name, value in
            unsafe Self.forwardingDecision(
                name,
                value,
                framing: framing,
                keepsHost: absolute == nil,
                hasHost: &hasHost,
                hasFramingField: &hasFramingField
            )
        }
        // The byte buffer is still the request's: copied here once, with room for what comes.
        headers.reserveAdditionalCapacity(fields: 0, bytes: extraBytes + 64)

        var forwardedTarget = target
        if let absolute {
            if absolute.pathAndQuery.isEmpty {
                // RFC 9112 §3.2.4: an empty path becomes "*" for OPTIONS and "/" otherwise.
                forwardedTarget = method == "OPTIONS" ? "*" : "/"
            } else if absolute.pathAndQuery.utf8.first == UInt8(ascii: "?") {
                forwardedTarget = "/" + absolute.pathAndQuery
            } else {
                forwardedTarget = absolute.pathAndQuery
            }
            headers.insert(name: "Host", value: absolute.authority, at: 0)
        } else if hasHost, let hostIndex = headers.firstIndex(of: "Host") {
            headers.moveToFront(hostIndex)
        } else {
            headers.insert(name: "Host", value: fallbackHost, at: 0)
        }

        if !hasFramingField {
            switch framing {
            case .none: break
            case .contentLength(let length): headers.add(name: "Content-Length", value: String(length))
            case .chunked, .untilClose: headers.add(name: "Transfer-Encoding", value: "chunked")
            }
        }
        return HTTPRequestHead(method: method, target: forwardedTarget, version: .http1_1, headers: headers)
    }

    /// The forwarding rules for Host, framing and underscore names; other fields get the
    /// hop-by-hop rules. Only a `keep` decision can keep a hop-by-hop name (the framing field).
    private static func forwardingDecision(
        _ name: UnsafeBufferPointer<UInt8>,
        _ value: UnsafeBufferPointer<UInt8>,
        framing: HTTPBodyFraming,
        keepsHost: Bool,
        hasHost: inout Bool,
        hasFramingField: inout Bool
    ) -> HopByHopHeaders.Decision {
        if unsafe name.contains(UInt8(ascii: "_")) { return .remove }
        switch name.count {
        case 4 where unsafe HopByHopHeaders.equalsLowercase(name, "host"):
            // Only the first Host survives (the parser refuses two; a built head might not).
            guard keepsHost && !hasHost else { return .remove }
            hasHost = true
            return .keep
        case 14 where unsafe HopByHopHeaders.equalsLowercase(name, "content-length"):
            guard case .contentLength(let length) = framing, !hasFramingField,
                unsafe isCanonicalDecimal(value, length)
            else { return .remove }
            hasFramingField = true
            return .keep
        case 17 where unsafe HopByHopHeaders.equalsLowercase(name, "transfer-encoding"):
            guard framing == .chunked || framing == .untilClose, !hasFramingField,
                unsafe HopByHopHeaders.equalsLowercase(value, "chunked")
            else { return .remove }
            hasFramingField = true
            return .keep
        default:
            return .applyRules
        }
    }

    /// Whether `bytes` is `value` in decimal without leading zeros.
    private static func isCanonicalDecimal(_ bytes: UnsafeBufferPointer<UInt8>, _ value: UInt64) -> Bool {
        guard !bytes.isEmpty, bytes.count <= 20, unsafe bytes.count == 1 || bytes[0] != UInt8(ascii: "0") else { return false }
        var parsed: UInt64 = 0
        for unsafe byte in unsafe bytes {
            guard ByteClass.isDigit(byte) else { return false }
            let (product, overflowed) = parsed.multipliedReportingOverflow(by: 10)
            let (sum, carried) = product.addingReportingOverflow(UInt64(byte &- 0x30))
            guard !overflowed && !carried else { return false }
            parsed = sum
        }
        return parsed == value
    }

    /// The authority and the rest of an http(s) absolute-form target, or nil for other forms.
    private func absoluteFormParts() -> (authority: String, pathAndQuery: String)? {
        unsafe HTTPHeaders.withBytes(of: target) { target in
            guard unsafe target.first != ASCII.slash, let base = target.baseAddress,
                case .absolute(let authority, let rest)? = unsafe try? RequestTargetForm.classify(target, method: method)
            else { return nil }
            return unsafe (FieldStrings.ascii(base, authority), FieldStrings.ascii(base, rest))
        }
    }
}
