public import AppNativeJSON
import AppNativeHTTP
import AppNativeProxy

extension OTLPBatch {
    /// The OTLP/JSON body (`application/json`): protobuf's JSON mapping with OTLP's exceptions
    /// (ids as lowercase hex, not base64; enums as integers; 64-bit integers as strings).
    public var json: JSONValue {
        let spans: [JSONValue] = spans.map { span in
            var members: [(String, JSONValue)] = [
                ("traceId", .string(span.context.traceID.hex)),
                ("spanId", .string(span.context.spanID.hex)),
            ]
            if let traceState = span.context.traceState { members.append(("traceState", .string(traceState))) }
            if let parent = span.context.parentSpanID { members.append(("parentSpanId", .string(parent.hex))) }
            members += [
                ("name", .string(span.name)),
                ("kind", .number(JSONNumber(Self.serverKind))),
                ("startTimeUnixNano", .string(String(span.startUnixNanoseconds))),
                ("endTimeUnixNano", .string(String(span.endUnixNanoseconds))),
                ("attributes", Self.json(span.attributes)),
            ]
            if span.isError { members.append(("status", .object(JSONObject([("code", .number(JSONNumber(Self.errorStatus)))])))) }
            return .object(JSONObject(members))
        }
        let scope = JSONObject([("name", .string(scopeName)), ("version", .string(scopeVersion))])
        let scopeSpans = JSONObject([("scope", .object(scope)), ("spans", .array(spans))])
        let resourceSpans = JSONObject([
            ("resource", .object(JSONObject([("attributes", Self.json(resource))]))),
            ("scopeSpans", .array([.object(scopeSpans)])),
        ])
        return .object(JSONObject([("resourceSpans", .array([.object(resourceSpans)]))]))
    }

    /// The serialized JSON body.
    public var jsonBody: [UInt8] { JSONSerializer.serialize(json) }

    private static func json(_ attributes: [SpanAttribute]) -> JSONValue {
        .array(attributes.map { attribute in
            let value: JSONObject
            switch attribute.value {
            case .string(let text): value = JSONObject([("stringValue", .string(text))])
            case .int(let number): value = JSONObject([("intValue", .string(String(number)))])
            case .bool(let flag): value = JSONObject([("boolValue", .bool(flag))])
            }
            return .object(JSONObject([("key", .string(attribute.key)), ("value", .object(value))]))
        })
    }
}
