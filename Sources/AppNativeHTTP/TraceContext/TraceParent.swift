// Unsafe (pointer scanning on the request path): every function reads only inside the buffer or
// the `start..<end` range it is given, checking the index before each read, and the buffer is
// borrowed by its caller (a parser's input, a field's bytes in HTTPHeaders) for the call; nothing
// keeps a pointer past it. See docs/memory-safety.md.

/// A W3C Trace Context `traceparent` value (https://www.w3.org/TR/trace-context/ §3.2): the
/// trace id, the caller's span id (the parent of the receiver's span) and the trace flags.
///
/// Parsing is strict and total: lowercase hexadecimal only, all-zero ids refused, version `ff`
/// refused, version `00` exactly 55 characters, a later version read as version 00's fields
/// with anything after them only behind a `-` (§3.2.4, "Versioning of traceparent").
public struct TraceParent: Sendable, Hashable {
    public var traceID: TraceID
    public var parentID: SpanID
    /// The trace flags byte (§3.2.2.5); bit 0 is `sampled`.
    public var flags: UInt8

    /// Bit 0 of the trace flags (§3.2.2.5.1).
    public static let sampledFlag: UInt8 = 0x01

    public init(traceID: TraceID, parentID: SpanID, flags: UInt8) {
        self.traceID = traceID
        self.parentID = parentID
        self.flags = flags
    }

    public var isSampled: Bool { flags & Self.sampledFlag != 0 }

    /// The field name (§3.2.1), as the gateway sends it.
    public static let header = "traceparent"

    /// The one `traceparent` of `headers`, or `nil` when there is none, more than one (which
    /// one would be the caller's is unknowable), or it is invalid.
    public static func parse(from headers: HTTPHeaders) -> TraceParent? {
        var parsed: TraceParent?
        var count = 0
        unsafe headers.forEachValueBytes(header) { value, _ in
            count += 1
            parsed = unsafe count == 1 ? parse(value) : nil
            return count == 1
        }
        return parsed
    }

    /// Parses one field value; `nil` when it is not a valid `traceparent`.
    public static func parse(_ value: some Collection<UInt8>) -> TraceParent? {
        let bytes = Array(value)
        // version "-" trace-id "-" parent-id "-" trace-flags: 2 + 1 + 32 + 1 + 16 + 1 + 2.
        guard bytes.count >= 55, let version = hexValue(bytes, 0, 2), version != 0xFF else { return nil }
        if version == 0 {
            guard bytes.count == 55 else { return nil }
        } else if bytes.count > 55 {
            // A later version may append fields, always after a dash (§3.2.4).
            guard bytes[55] == UInt8(ascii: "-") else { return nil }
        }
        guard bytes[2] == UInt8(ascii: "-"), bytes[35] == UInt8(ascii: "-"), bytes[52] == UInt8(ascii: "-"),
            let high = hexValue(bytes, 3, 16), let low = hexValue(bytes, 19, 16),
            let parent = hexValue(bytes, 36, 16),
            let flags = hexValue(bytes, 53, 2)
        else { return nil }
        let traceID = TraceID(high: high, low: low)
        // All-zero ids are invalid (§3.2.2.3, §3.2.2.4).
        guard traceID.isValid, parent != 0 else { return nil }
        return TraceParent(traceID: traceID, parentID: SpanID(parent), flags: UInt8(flags))
    }

    /// The version 00 value (the version the gateway speaks, whatever version it received).
    public var headerValue: String { String(decoding: headerBytes, as: UTF8.self) }

    /// `headerValue`'s bytes: `00-<trace-id>-<parent-id>-<flags>`, written in place (it runs
    /// for every forwarded request).
    public var headerBytes: [UInt8] {
        var out = [UInt8](repeating: UInt8(ascii: "-"), count: 55)
        var span = out.mutableSpan
        TraceHex.write(0, digits: 2, into: &span, at: 0)
        TraceHex.write(traceID.high, digits: 16, into: &span, at: 3)
        TraceHex.write(traceID.low, digits: 16, into: &span, at: 19)
        TraceHex.write(parentID.value, digits: 16, into: &span, at: 36)
        TraceHex.write(UInt64(flags), digits: 2, into: &span, at: 53)
        return out
    }

    /// `count` lowercase hexadecimal digits (HEXDIGLC) at `start` as a number, or `nil`.
    private static func hexValue(_ bytes: [UInt8], _ start: Int, _ count: Int) -> UInt64? {
        var value: UInt64 = 0
        for byte in bytes[start..<(start + count)] {
            guard let digit = TraceHex.digit(byte) else { return nil }
            value = value << 4 | UInt64(digit)
        }
        return value
    }
}

/// A 16-byte trace id (§3.2.2.3); all zeros is invalid.
public struct TraceID: Sendable, Hashable {
    public var high: UInt64
    public var low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    public var isValid: Bool { high != 0 || low != 0 }

    /// The 32 lowercase hexadecimal digits.
    public var hex: String {
        var out = [UInt8]()
        out.reserveCapacity(32)
        appendHex(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The 16 bytes, most significant first (the order OTLP's protobuf encoding carries).
    public var bytes: [UInt8] { TraceHex.bigEndianBytes(high) + TraceHex.bigEndianBytes(low) }

    func appendHex(to out: inout [UInt8]) {
        TraceHex.append(high, digits: 16, to: &out)
        TraceHex.append(low, digits: 16, to: &out)
    }
}

/// An 8-byte span id (§3.2.2.4, `parent-id`); zero is invalid.
public struct SpanID: Sendable, Hashable {
    public var value: UInt64

    public init(_ value: UInt64) { self.value = value }

    public var isValid: Bool { value != 0 }

    /// The 16 lowercase hexadecimal digits.
    public var hex: String {
        var out = [UInt8]()
        out.reserveCapacity(16)
        appendHex(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The 8 bytes, most significant first.
    public var bytes: [UInt8] { TraceHex.bigEndianBytes(value) }

    func appendHex(to out: inout [UInt8]) {
        TraceHex.append(value, digits: 16, to: &out)
    }
}

/// Lowercase hexadecimal, the only case Trace Context allows (HEXDIGLC).
enum TraceHex {
    static func digit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// The low `count` nibbles of `value` as lowercase hexadecimal, most significant first.
    static func append(_ value: UInt64, digits count: Int, to out: inout [UInt8]) {
        var shift = UInt64(max(0, min(count, 16)) * 4)
        while shift > 0 {
            shift -= 4
            out.append(character(UInt8(truncatingIfNeeded: value >> shift) & 0xF))
        }
    }

    /// `append`, written over `span` from `offset` (the caller sized it).
    static func write(_ value: UInt64, digits count: Int, into span: inout MutableSpan<UInt8>, at offset: Int) {
        for index in 0..<count {
            let shift = UInt64((count - 1 - index) * 4)
            span[offset + index] = character(UInt8(truncatingIfNeeded: value >> shift) & 0xF)
        }
    }

    private static func character(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? nibble &+ UInt8(ascii: "0") : nibble &+ (UInt8(ascii: "a") &- 10)
    }

    static func bigEndianBytes(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> UInt64((7 - $0) * 8)) }
    }
}
