import AppNativeGateway
import AppNativeHTTP
import AppNativeJSON
import AppNativeProxy
import Foundation
import Testing

/// The OTLP encodings of a span batch and the `OTEL_*` settings, without sockets. The
/// protobuf bytes are those opentelemetry-proto's Python classes produce for the same
/// `ExportTraceServiceRequest` (the receiver in Tests/Peers decodes the live exports).
@Suite("OTLP encoding and settings")
struct OTLPEncodingTests {
    static let span = ExchangeSpan(
        context: TraceContext(
            traceID: TraceID(high: 0x4bf9_2f35_77b3_4da6, low: 0xa3ce_929d_0e0e_4736), spanID: SpanID(0x0102_0304_0506_0708),
            parentSpanID: SpanID(0x00f0_67aa_0ba9_02b7), isSampled: true, traceState: "rojo=1"),
        name: "GET",
        startUnixNanoseconds: 1_700_000_000_000_000_000,
        endUnixNanoseconds: 1_700_000_000_500_000_000,
        attributes: [SpanAttribute("http.request.method", .string("GET")), SpanAttribute("http.response.status_code", .int(503)),
                     SpanAttribute("flag", .bool(true))],
        isError: true)
    static let batch = OTLPBatch(
        resource: [SpanAttribute("service.name", .string("gw"))], scopeName: "app-native-gateway", scopeVersion: "0.1.0", spans: [span])

    /// `ExportTraceServiceRequest(...).SerializeToString().hex()` with opentelemetry-proto 1.45.2
    /// (the venv of scripts/install-python-tools.sh) for the same batch: one `ResourceSpans`
    /// (resource `service.name=gw`), one `ScopeSpans` (scope `app-native-gateway` `0.1.0`), one
    /// `Span` with the ids, `trace_state`, name, kind 2, times, the three attributes and
    /// `Status(code=2)` above.
    static let protobufGolden = "0ad2010a160a140a0c736572766963652e6e616d6512040a02677712b7010a1b0a126170702d6e61746976652d676174657761791205302e312e301297010a104bf92f3577b34da6a3ce929d0e0e4736120801020304050607081a06726f6a6f3d31220800f067aa0ba902b72a0347455430023900002a36fe9c9717410065f753fe9c97174a1c0a13687474702e726571756573742e6d6574686f6412050a034745544a200a19687474702e726573706f6e73652e7374617475735f636f6465120318f7034a0a0a04666c6167120210017a021802"

    @Test func protobufMatchesTheReferenceEncoder() {
        let hex = Self.batch.protobufBody.map { String(format: "%02x", $0) }.joined()
        #expect(hex == Self.protobufGolden)
    }

    @Test func json() throws {
        let parsed = try JSONParser().parse(Self.batch.jsonBody)
        let resourceSpans = try #require(parsed.objectValue?["resourceSpans"]?.arrayValue?.first?.objectValue)
        let resource = try #require(resourceSpans["resource"]?.objectValue?["attributes"]?.arrayValue?.first?.objectValue)
        #expect(resource["key"]?.stringValue == "service.name")
        #expect(resource["value"]?.objectValue?["stringValue"]?.stringValue == "gw")
        let scopeSpans = try #require(resourceSpans["scopeSpans"]?.arrayValue?.first?.objectValue)
        #expect(scopeSpans["scope"]?.objectValue?["name"]?.stringValue == "app-native-gateway")
        let span = try #require(scopeSpans["spans"]?.arrayValue?.first?.objectValue)
        #expect(span["traceId"]?.stringValue == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(span["spanId"]?.stringValue == "0102030405060708")
        #expect(span["parentSpanId"]?.stringValue == "00f067aa0ba902b7")
        #expect(span["traceState"]?.stringValue == "rojo=1")
        #expect(span["kind"]?.numberValue?.int64 == 2)
        #expect(span["startTimeUnixNano"]?.stringValue == "1700000000000000000")
        #expect(span["endTimeUnixNano"]?.stringValue == "1700000000500000000")
        #expect(span["status"]?.objectValue?["code"]?.numberValue?.int64 == 2)
        let attributes = try #require(span["attributes"]?.arrayValue)
        #expect(attributes[1].objectValue?["value"]?.objectValue?["intValue"]?.stringValue == "503")
        #expect(attributes[2].objectValue?["value"]?.objectValue?["boolValue"] == .bool(true))
    }

    static let base = ProxyFixture.publicEnvironment(["UPSTREAM_URL": "http://127.0.0.1:1"])

    static func problems(_ extra: [String: String]) -> [ConfigurationError.Problem] {
        do {
            _ = try GatewayConfiguration.fromEnvironment(base.merging(extra) { $1 })
            return []
        } catch {
            return error.problems
        }
    }

    @Test func settings() throws {
        let off = try GatewayConfiguration.fromEnvironment(Self.base)
        #expect(off.tracing.export == nil)
        #expect(off.tracing.sampler == .standard)
        let on = try GatewayConfiguration.fromEnvironment(Self.base.merging([
            "OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector.example:4318/",
            "OTEL_EXPORTER_OTLP_HEADERS": "api-key=a%3Db, x-team = blue",
            "OTEL_RESOURCE_ATTRIBUTES": "service.name=ignored,deployment.environment.name=prod",
            "OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.5",
        ]) { $1 })
        let export = try #require(on.tracing.export)
        #expect(export.url == "https://collector.example:4318/v1/traces")
        #expect(export.encoding == .protobuf)
        #expect(export.resource.first == SpanAttribute("service.name", .string("ignored")))
        #expect(export.resource.contains(SpanAttribute("deployment.environment.name", .string("prod"))))
        #expect(on.tracing.sampler == .parentBased(root: .traceIDRatio(0.5)))
        let named = try GatewayConfiguration.fromEnvironment(Self.base.merging([
            "OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector.example", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://traces.example/custom",
            "OTEL_SERVICE_NAME": "edge", "OTEL_RESOURCE_ATTRIBUTES": "service.name=ignored", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
        ]) { $1 })
        #expect(named.tracing.export?.url == "https://traces.example/custom")
        #expect(named.tracing.export?.encoding == .json)
        #expect(named.tracing.export?.resource.first == SpanAttribute("service.name", .string("edge")))
    }

    @Test func refusedSettings() {
        #expect(Self.problems(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector.example:4318"]).map(\.variable) == ["OTEL_EXPORTER_OTLP_ENDPOINT"])
        #expect(Self.problems(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"]).map(\.variable)
            == ["OTEL_EXPORTER_OTLP_PROTOCOL"])
        #expect(Self.problems(["OTEL_TRACES_SAMPLER": "jaeger_remote"]).map(\.variable) == ["OTEL_TRACES_SAMPLER"])
        #expect(Self.problems(["OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "2"]).map(\.variable) == ["OTEL_TRACES_SAMPLER_ARG"])
        #expect(Self.problems([
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_BSP_MAX_QUEUE_SIZE": "10", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "20",
        ]).map(\.variable) == ["OTEL_BSP_MAX_EXPORT_BATCH_SIZE"])
        // A bad header pair is reported by position: its text is a secret.
        let secret = "bad name=super-secret-value"
        let problems = Self.problems(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_HEADERS": secret])
        #expect(problems.map(\.variable) == ["OTEL_EXPORTER_OTLP_HEADERS"])
        #expect(!problems.map(\.message).joined().contains("super-secret"))
    }
}
