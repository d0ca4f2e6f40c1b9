import AppNativeHTTP
import AppNativeProxy

extension OTLPBatch {
    /// The OTLP/protobuf body (`application/x-protobuf`): `ExportTraceServiceRequest` in the
    /// protobuf wire format, written by hand (the messages are few and flat). Field numbers are
    /// those of opentelemetry-proto `trace/v1/trace.proto`, `common/v1/common.proto`,
    /// `resource/v1/resource.proto`.
    public var protobufBody: [UInt8] {
        var scope = ProtobufWriter()
        scope.string(1, scopeName)
        scope.string(2, scopeVersion)
        var scopeSpans = ProtobufWriter()
        scopeSpans.message(1, scope.bytes)
        for span in spans { scopeSpans.message(2, Self.protobuf(span)) }
        var resource = ProtobufWriter()
        for attribute in self.resource { resource.message(1, Self.protobuf(attribute)) }
        var resourceSpans = ProtobufWriter()
        resourceSpans.message(1, resource.bytes)
        resourceSpans.message(2, scopeSpans.bytes)
        var request = ProtobufWriter()
        request.message(1, resourceSpans.bytes)
        return request.bytes
    }

    /// `Span`: 1 trace_id, 2 span_id, 3 trace_state, 4 parent_span_id, 5 name, 6 kind,
    /// 7 start_time_unix_nano, 8 end_time_unix_nano, 9 attributes, 15 status.
    private static func protobuf(_ span: ExchangeSpan) -> [UInt8] {
        var out = ProtobufWriter()
        out.bytes(1, span.context.traceID.bytes)
        out.bytes(2, span.context.spanID.bytes)
        if let traceState = span.context.traceState { out.string(3, traceState) }
        if let parent = span.context.parentSpanID { out.bytes(4, parent.bytes) }
        out.string(5, span.name)
        out.varint(6, UInt64(serverKind))
        out.fixed64(7, span.startUnixNanoseconds)
        out.fixed64(8, span.endUnixNanoseconds)
        for attribute in span.attributes { out.message(9, protobuf(attribute)) }
        if span.isError {
            // `Status`: 3 code.
            var status = ProtobufWriter()
            status.varint(3, UInt64(errorStatus))
            out.message(15, status.bytes)
        }
        return out.bytes
    }

    /// `KeyValue`: 1 key, 2 value (`AnyValue`: 1 string_value, 2 bool_value, 3 int_value).
    private static func protobuf(_ attribute: SpanAttribute) -> [UInt8] {
        var value = ProtobufWriter()
        switch attribute.value {
        case .string(let text): value.string(1, text)
        case .bool(let flag): value.varint(2, flag ? 1 : 0)
        case .int(let number): value.varint(3, UInt64(bitPattern: number))
        }
        var out = ProtobufWriter()
        out.string(1, attribute.key)
        out.message(2, value.bytes)
        return out.bytes
    }
}

/// The protobuf wire format (https://protobuf.dev/programming-guides/encoding/): each field a
/// tag (field number, wire type) then a varint, a little-endian fixed64, or a length and bytes.
/// Proto3 fields with zero values may be left out; they are written anyway here only where
/// the gateway always has a value.
struct ProtobufWriter {
    private(set) var bytes: [UInt8] = []

    mutating func varint(_ field: Int, _ value: UInt64) {
        tag(field, wireType: 0)
        appendVarint(value)
    }

    mutating func fixed64(_ field: Int, _ value: UInt64) {
        tag(field, wireType: 1)
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func bytes(_ field: Int, _ value: [UInt8]) {
        tag(field, wireType: 2)
        appendVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func string(_ field: Int, _ value: String) {
        bytes(field, Array(value.utf8))
    }

    mutating func message(_ field: Int, _ encoded: [UInt8]) {
        bytes(field, encoded)
    }

    private mutating func tag(_ field: Int, wireType: UInt64) {
        appendVarint(UInt64(field) << 3 | wireType)
    }

    private mutating func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }
}
