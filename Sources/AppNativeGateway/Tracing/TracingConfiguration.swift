public import AppNativeClient
public import AppNativeCore
public import AppNativeHTTP
public import AppNativeProxy
import Foundation

/// W3C Trace Context and OTLP export, read from OpenTelemetry's standard variables
/// (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/ and
/// https://opentelemetry.io/docs/specs/otel/protocol/exporter/). The trace context is always
/// continued or started; spans are exported only when an endpoint is set.
public struct TracingConfiguration: Sendable {
    /// How spans are encoded (`OTEL_EXPORTER_OTLP_PROTOCOL`).
    public enum Encoding: String, Sendable {
        case protobuf = "http/protobuf"
        case json = "http/json"

        public var contentType: String {
            switch self {
            case .protobuf: "application/x-protobuf"
            case .json: "application/json"
            }
        }
    }

    /// Where and how spans are sent; `nil` when no endpoint is configured.
    public struct Export: Sendable {
        /// The full traces URL (`…/v1/traces`).
        public var url: String
        public var encoding: Encoding
        /// `OTEL_EXPORTER_OTLP_HEADERS`: credentials of the collector, never logged.
        public var headers: Secret<[HTTPHeaderField]>
        public var timeout: Duration
        public var scheduleDelay: Duration
        public var maxQueueSize: Int
        public var maxBatchSize: Int
        /// `service.name`, `service.version` and `OTEL_RESOURCE_ATTRIBUTES`.
        public var resource: [SpanAttribute]
        public var caFile: String?
    }

    public var sampler: TraceSampler
    public var export: Export?

    public init(sampler: TraceSampler = .standard, export: Export? = nil) {
        self.sampler = sampler
        self.export = export
    }

    static let section = "Tracing"

    /// The settings `config` lists: OpenTelemetry's names, kept exactly.
    public static let settings: [Setting] = [
        Setting("OTEL_EXPORTER_OTLP_ENDPOINT", section: section, "OTLP/HTTP base URL of a collector (https; http only for a loopback address): spans go to `{endpoint}/v1/traces`. Unset (and no OTEL_EXPORTER_OTLP_TRACES_ENDPOINT): no span is exported; `traceparent` is still continued or started."),
        Setting("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", section: section, "The full traces URL, used as it is; wins over OTEL_EXPORTER_OTLP_ENDPOINT."),
        Setting("OTEL_EXPORTER_OTLP_PROTOCOL", default: "http/protobuf", section: section, "`http/protobuf` or `http/json` (OTLP/HTTP encodings; `grpc` is not supported). OTEL_EXPORTER_OTLP_TRACES_PROTOCOL wins when set."),
        Setting("OTEL_EXPORTER_OTLP_HEADERS", section: section, secret: true, "Fields sent with every export, `name=value` pairs comma-separated, values percent-decoded (a collector's API key). OTEL_EXPORTER_OTLP_TRACES_HEADERS wins when set. Never logged."),
        Setting("OTEL_EXPORTER_OTLP_TIMEOUT", default: "10000", section: section, "Milliseconds one export may take (1–60000); a batch that fails or times out is dropped and counted. OTEL_EXPORTER_OTLP_TRACES_TIMEOUT wins when set."),
        Setting("OTEL_EXPORTER_OTLP_CERTIFICATE", section: section, "PEM CA bundle to verify an https collector (default: the system store). OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE wins when set."),
        Setting("OTEL_SERVICE_NAME", default: "app-native-gateway", section: section, "`service.name` of the exported spans; wins over a `service.name` in OTEL_RESOURCE_ATTRIBUTES."),
        Setting("OTEL_RESOURCE_ATTRIBUTES", section: section, "More resource attributes, `key=value` pairs comma-separated, values percent-decoded (`deployment.environment.name=prod`)."),
        Setting("OTEL_TRACES_SAMPLER", default: "parentbased_always_on", section: section, "`always_on`, `always_off`, `traceidratio`, `parentbased_always_on`, `parentbased_always_off` or `parentbased_traceidratio`: decides the `sampled` flag the upstream receives and which spans are exported. `parentbased_*` follow the caller's flag."),
        Setting("OTEL_TRACES_SAMPLER_ARG", default: "1", section: section, "The ratio (0–1) of the `traceidratio` samplers."),
        Setting("OTEL_BSP_SCHEDULE_DELAY", default: "5000", section: section, "Milliseconds between exports (1–60000); a full batch goes at once."),
        Setting("OTEL_BSP_MAX_QUEUE_SIZE", default: "2048", section: section, "Spans waiting for export (1–100000); when full, new spans are dropped and counted, requests never wait."),
        Setting("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", default: "512", section: section, "Most spans in one export (1–OTEL_BSP_MAX_QUEUE_SIZE)."),
    ]

    /// Reads the settings; problems go to `reader`.
    static func read(_ reader: inout EnvironmentReader) -> TracingConfiguration {
        var sampler = TraceSampler.standard
        if let name = reader.string("OTEL_TRACES_SAMPLER") {
            if let parsed = TraceSampler(name: name, argument: reader.string("OTEL_TRACES_SAMPLER_ARG")) {
                sampler = parsed
            } else if TraceSampler(name: name, argument: nil) != nil {
                reader.report("OTEL_TRACES_SAMPLER_ARG", "must be a ratio from 0 to 1")
            } else {
                reader.report(
                    "OTEL_TRACES_SAMPLER",
                    "must be always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio, got \(name.debugDescription)")
            }
        }
        let url: String
        if let traces = reader.string("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
            url = traces
            check(url, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", &reader)
        } else if let base = reader.string("OTEL_EXPORTER_OTLP_ENDPOINT") {
            url = (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/v1/traces"
            check(base, "OTEL_EXPORTER_OTLP_ENDPOINT", &reader)
        } else {
            return TracingConfiguration(sampler: sampler)
        }
        var encoding = Encoding.protobuf
        let protocolName = reader.string("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") != nil
            ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL" : "OTEL_EXPORTER_OTLP_PROTOCOL"
        if let text = reader.string(protocolName) {
            if let parsed = Encoding(rawValue: text) {
                encoding = parsed
            } else {
                reader.report(protocolName, "must be http/protobuf or http/json (grpc is not supported), got \(text.debugDescription)")
            }
        }
        let headersName = reader.environment["OTEL_EXPORTER_OTLP_TRACES_HEADERS"] != nil
            ? "OTEL_EXPORTER_OTLP_TRACES_HEADERS" : "OTEL_EXPORTER_OTLP_HEADERS"
        var headers = [HTTPHeaderField]()
        if let text = reader.string(headersName) {
            // The value is a secret: a problem names the pair's position, never its text.
            for (index, pair) in pairs(text).enumerated() {
                guard let pair, isToken(pair.key), isFieldValue(pair.value) else {
                    reader.report(headersName, "pair \(index + 1) is not `name=value` with a field name and a field value")
                    continue
                }
                headers.append(HTTPHeaderField(name: pair.key, value: pair.value))
            }
        }
        let timeoutName = reader.string("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT") != nil
            ? "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT" : "OTEL_EXPORTER_OTLP_TIMEOUT"
        let timeout = reader.integer(timeoutName, default: 10_000, in: 1...60_000)
        let delay = reader.integer("OTEL_BSP_SCHEDULE_DELAY", default: 5_000, in: 1...60_000)
        let queueSize = reader.integer("OTEL_BSP_MAX_QUEUE_SIZE", default: 2_048, in: 1...100_000)
        var batchSize = reader.integer("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", default: 512, in: 1...100_000)
        if batchSize > queueSize {
            reader.report("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "must be at most OTEL_BSP_MAX_QUEUE_SIZE (\(queueSize))")
            batchSize = queueSize
        }
        var resource = [SpanAttribute]()
        if let text = reader.string("OTEL_RESOURCE_ATTRIBUTES") {
            for (index, pair) in pairs(text).enumerated() {
                guard let pair, !pair.key.isEmpty else {
                    reader.report("OTEL_RESOURCE_ATTRIBUTES", "pair \(index + 1) is not `key=value`")
                    continue
                }
                resource.removeAll { $0.key == pair.key }
                resource.append(SpanAttribute(pair.key, .string(pair.value)))
            }
        }
        let serviceName = reader.string("OTEL_SERVICE_NAME")
            ?? resource.first { $0.key == "service.name" }.flatMap { if case .string(let name) = $0.value { name } else { nil } }
            ?? "app-native-gateway"
        resource.removeAll { $0.key == "service.name" }
        if !resource.contains(where: { $0.key == "service.version" }) {
            resource.insert(SpanAttribute("service.version", .string(GatewayVersion.current)), at: 0)
        }
        resource.insert(SpanAttribute("service.name", .string(serviceName)), at: 0)
        let caFile = reader.string("OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE") ?? reader.string("OTEL_EXPORTER_OTLP_CERTIFICATE")
        return TracingConfiguration(
            sampler: sampler,
            export: Export(
                url: url, encoding: encoding, headers: Secret(headers), timeout: .milliseconds(timeout),
                scheduleDelay: .milliseconds(delay), maxQueueSize: queueSize, maxBatchSize: batchSize, resource: resource,
                caFile: caFile))
    }

    private static func check(_ url: String, _ name: String, _ reader: inout EnvironmentReader) {
        do throws(ClientError) {
            try URLPolicy.validateOutbound(url: url, allowsCleartextOnLoopback: true)
            if url.contains("?") || url.contains("#") { throw ClientError(.invalidURL, reason: "query or fragment") }
        } catch {
            reader.report(name, "must be an https URL (plain http only for a loopback address), without query or fragment: \(error.code)")
        }
    }

    /// `key=value` pairs separated by commas, keys and values trimmed, values percent-decoded
    /// (the W3C Baggage form OpenTelemetry's variables use); `nil` for a pair without `=` or
    /// with a bad escape.
    static func pairs(_ text: String) -> [(key: String, value: String)?] {
        text.split(separator: ",", omittingEmptySubsequences: true).map { pair in
            guard let equals = pair.firstIndex(of: "=") else { return nil }
            let key = pair[..<equals].trimmingCharacters(in: .whitespaces)
            let raw = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard let value = raw.removingPercentEncoding else { return nil }
            return (key, value)
        }
    }

    /// A field name: a token (RFC 9110 §5.6.2).
    private static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    /// A field value of visible ASCII, spaces and tabs (RFC 9110 §5.5, without obs-text).
    private static func isFieldValue(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 == 0x09 || (0x20...0x7E).contains($0) }
    }

    /// The proxy's part: the sampler and, with an endpoint, the exporter's recorder.
    func exchangeTracing(recorder: (any SpanRecording)?) -> ExchangeTracing {
        ExchangeTracing(sampler: sampler, recorder: recorder)
    }
}
