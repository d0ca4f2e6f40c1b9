// RFC 9112 §6 message body length, applied to raw field bytes.

// Unsafe (pointer scanning on the request path): every function reads only inside the buffer or
// the `start..<end` range it is given, checking the index before each read, and the buffer is
// borrowed by its caller (a parser's input, a field's bytes in HTTPHeaders) for the call; nothing
// keeps a pointer past it. See docs/memory-safety.md.

enum FramingRules {
    /// Content-Length = 1*DIGIT (RFC 9110 §8.6), one field line only.
    ///
    /// Identical duplicates (`5` twice, or `5, 5`) are refused rather than collapsed: the RFC
    /// allows either, and refusing leaves no chance that a downstream picks a different one.
    static func contentLength(
        _ bytes: UnsafePointer<UInt8>,
        _ fields: FieldList,
        _ summary: FieldSummary,
        maxBodyBytes: UInt64?
    ) throws(HTTPParseError) -> UInt64 {
        guard summary.contentLengthCount == 1 else {
            throw HTTPParseError(.invalidContentLength, reason: "more than one Content-Length field line")
        }
        let value = unsafe FieldSummary.value(bytes, fields[summary.contentLengthIndex])
        guard !value.isEmpty else {
            throw HTTPParseError(.invalidContentLength, reason: "empty Content-Length")
        }
        guard let length = unsafe ByteClass.decimalValue(value) else {
            throw unsafe value.allSatisfy(ByteClass.isDigit)
                ? HTTPParseError(.invalidContentLength, reason: "Content-Length overflows 64 bits")
                : HTTPParseError(.invalidContentLength, reason: "Content-Length is not 1*DIGIT")
        }
        if let max = maxBodyBytes, length > max {
            throw HTTPParseError(.bodyTooLarge, reason: "Content-Length larger than maxBodyBytes")
        }
        return length
    }

    /// Checks that Transfer-Encoding, across all its field lines, is exactly `chunked`.
    ///
    /// The order of the checks decides the status when several rules fail:
    /// 1. any Transfer-Encoding in HTTP/1.0 is faulty framing (RFC 9112 §6.1) → 400;
    /// 2. no coding at all, `chunked` more than once or not last (RFC 9112 §6.1, §6.3) → 400;
    /// 3. `identity`, which RFC 7230 removed from the registry and which some servers still
    ///    read as "no transfer coding" and fall back to Content-Length → 400;
    /// 4. any other coding, which this gateway does not implement (RFC 9112 §6.1 SHOULD) → 501.
    /// Content-Length next to it is checked by the caller afterwards (→ 400).
    static func checkChunkedOnly(
        _ bytes: UnsafePointer<UInt8>,
        _ fields: FieldList,
        version: HTTPVersion
    ) throws(HTTPParseError) {
        guard version.hasHTTP11Semantics else {
            throw HTTPParseError(.invalidTransferEncoding, reason: "Transfer-Encoding in an HTTP/1.0 message")
        }
        var codings = 0
        var chunkedCount = 0
        var isChunkedLast = false
        var hasIdentity = false
        var hasOther = false
        for field in fields
        where unsafe FieldSummary.name(bytes + field.nameStart, count: field.nameEnd - field.nameStart) == .transferEncoding {
            unsafe ListElements.forEach(in: FieldSummary.value(bytes, field)) { coding in
                codings += 1
                isChunkedLast = unsafe ListElements.equalsIgnoringCase(coding, "chunked")
                if isChunkedLast {
                    chunkedCount += 1
                } else if unsafe ListElements.equalsIgnoringCase(coding, "identity") {
                    hasIdentity = true
                } else {
                    hasOther = true
                }
                return true
            }
        }
        guard codings > 0 else {
            throw HTTPParseError(.invalidTransferEncoding, reason: "Transfer-Encoding without a coding")
        }
        guard chunkedCount <= 1 else {
            throw HTTPParseError(.invalidTransferEncoding, reason: "chunked applied more than once")
        }
        guard chunkedCount == 0 || isChunkedLast else {
            throw HTTPParseError(.invalidTransferEncoding, reason: "chunked is not the final transfer coding")
        }
        guard !hasIdentity else {
            throw HTTPParseError(.invalidTransferEncoding, reason: "identity is not a transfer coding")
        }
        guard !hasOther else {
            throw HTTPParseError(.unsupportedTransferCoding, reason: "transfer coding other than chunked")
        }
    }
}
