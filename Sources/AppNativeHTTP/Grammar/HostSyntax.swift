// RFC 9110 §7.2 and §4.2.4: Host = uri-host [ ":" port ], with uri-host from RFC 3986 §3.2.2:
//   uri-host    = IP-literal / IPv4address / reg-name
//   reg-name    = *( unreserved / pct-encoded / sub-delims )
//   unreserved  = ALPHA / DIGIT / "-" / "." / "_" / "~"
//   sub-delims  = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="
//   port        = *DIGIT
// Two deliberate narrowings, both because a reverse proxy routes on this value:
// - an empty host is refused (the grammar allows it when the target has no authority);
// - "," is refused: it is what a Host combined from two field lines looks like (RFC 9110
//   §5.3), and a back end that splits it would route on a different host than the gateway.
// Userinfo ("@") is not part of uri-host, so it is refused too (§4.2.4 says to treat it as an error).

// Read through a `Span` (bounds-checked, no `unsafe`): the callers make it from the bytes they
// borrow. See docs/memory-safety.md.

enum HostSyntax {
    static func isValid(_ bytes: Span<UInt8>) -> Bool {
        guard !bytes.isEmpty else { return false }
        var index = 0
        if bytes[0] == UInt8(ascii: "[") {
            index = 1
            while index < bytes.count && bytes[index] != UInt8(ascii: "]") {
                let byte = bytes[index]
                // IPv6, IPvFuture and RFC 6874 zone identifiers ("%25") use these bytes.
                guard isRegNameByte(byte) || byte == ASCII.colon || byte == UInt8(ascii: "%") else { return false }
                index += 1
            }
            guard index < bytes.count, index > 1 else { return false }
            index += 1
        } else {
            while index < bytes.count && bytes[index] != ASCII.colon {
                let byte = bytes[index]
                if byte == UInt8(ascii: "%") {
                    guard index + 2 < bytes.count else { return false }
                    guard ByteClass.hexValue(bytes[index + 1]) != nil, ByteClass.hexValue(bytes[index + 2]) != nil
                    else { return false }
                    index += 3
                    continue
                }
                guard isRegNameByte(byte) else { return false }
                index += 1
            }
            guard index > 0 else { return false }
        }
        if index == bytes.count { return true }
        guard bytes[index] == ASCII.colon else { return false }
        index += 1
        while index < bytes.count {
            guard ByteClass.isDigit(bytes[index]) else { return false }
            index += 1
        }
        return true
    }

    /// unreserved / sub-delims, without ",": ALPHA DIGIT - . _ ~ ! $ & ' ( ) * + ; =
    @inline(__always)
    private static func isRegNameByte(_ byte: UInt8) -> Bool {
        // Bit n of the first mask is byte n, bit n of the second is byte 64 + n.
        if byte < 64 { return (0x2BFF_6FD2_0000_0000 as UInt64) >> byte & 1 != 0 }
        if byte < 128 { return (0x47FF_FFFE_87FF_FFFE as UInt64) >> (byte &- 64) & 1 != 0 }
        return false
    }
}
