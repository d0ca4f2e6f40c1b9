import AppNativeDevPeers
import AppNativeHTTP
import AppNativeJSON
import AppNativeTesting
import Foundation
import Testing

/// W3C Trace Context and the OTLP span export (docs/operations.md, "Tracing"), through the
/// gateway binary, against `Tests/Peers/otlp_receiver.py`, which decodes every export with
/// OpenTelemetry's own protobuf classes (JSON through protobuf's JSON parser, unknown fields
/// refused).
@Suite("Tracing", .serialized)
struct TracingTests {
    static let incoming = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    static let apiKey = "otlp-secret-api-key-0123456789"

    /// The receiver, from the venv of scripts/install-python-tools.sh.
    static func startReceiver() async throws -> LoopbackPeer {
        let python = ProxyFixture.root + "/.build/python-tools/bin/python"
        try #require(FileManager.default.isExecutableFile(atPath: python), "run scripts/install-python-tools.sh (make test does)")
        return try await LoopbackPeer.start(python, [ProxyFixture.root + "/Tests/Peers/otlp_receiver.py"])
    }

    static func spans(_ receiver: LoopbackPeer) async throws -> [[String: Any]] {
        let body = try await blocking { try RawHTTPClient.get(port: receiver.port, "/spans").body }
        let document = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
        let errors = document?["errors"] as? [String] ?? []
        #expect(errors.isEmpty, "the receiver could not decode: \(errors)")
        return document?["spans"] as? [[String: Any]] ?? []
    }

    /// The value of the first sample of a metric whose exposed name starts with `name`.
    static func metric(_ name: String, adminPort: Int) async throws -> Int {
        let text = try await blocking { try RawHTTPClient.get(port: adminPort, "/metrics").bodyText }
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            let parts = line.split(separator: " ")
            if parts.count == 2, parts[0] == name, let value = Int(parts[1]) { return value }
        }
        return 0
    }

    static func upstreamTraceparent(_ response: RawHTTPClient.Response) throws -> String? {
        try ProxyFixture.echoedHeaders(response).first { $0.0 == "traceparent" }?.1
    }

    @Test("a caller's trace is continued, a missing or invalid one started; the spans arrive with their attributes", arguments: ["http/json", "http/protobuf"])
    func continuesStartsAndExports(encoding: String) async throws {
        let receiver = try await Self.startReceiver()
        defer { receiver.stop() }
        let fixture = try await ProxyFixture.start([
            "ACCESS_LOG": "true",
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(receiver.port)",
            "OTEL_EXPORTER_OTLP_PROTOCOL": encoding,
            "OTEL_EXPORTER_OTLP_HEADERS": "x-api-key=\(Self.apiKey)",
            "OTEL_SERVICE_NAME": "gateway-under-test",
            "OTEL_RESOURCE_ATTRIBUTES": "deployment.environment.name=test,team=a%20b",
            "OTEL_BSP_SCHEDULE_DELAY": "50",
        ])
        defer { fixture.stop() }
        let port = fixture.port

        // Continued: the upstream sees the same trace id, the gateway's span as parent, tracestate kept.
        let continued = try await blocking {
            try RawHTTPClient.get(port: port, "/echo?q=1", headers: [
                "traceparent": Self.incoming, "tracestate": "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE", "User-Agent": "trace-test/1",
            ])
        }
        #expect(continued.status == 200)
        let continuedParent = try #require(try Self.upstreamTraceparent(continued).flatMap { TraceParent.parse(Array($0.utf8)) })
        #expect(continuedParent.traceID.hex == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(continuedParent.parentID.hex != "00f067aa0ba902b7")
        #expect(continuedParent.isSampled)
        #expect(try ProxyFixture.echoedHeaders(continued).filter { $0.0 == "tracestate" }.map(\.1) == ["rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"])

        // Started: no traceparent.
        let started = try await blocking { try RawHTTPClient.get(port: port, "/echo") }
        let startedParent = try #require(try Self.upstreamTraceparent(started).flatMap { TraceParent.parse(Array($0.utf8)) })
        #expect(startedParent.isSampled)

        // Replaced: an invalid traceparent (uppercase) starts a new trace and its tracestate is dropped.
        let invalid = try await blocking {
            try RawHTTPClient.get(port: port, "/echo", headers: [
                "traceparent": "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01", "tracestate": "rojo=1",
            ])
        }
        let replaced = try #require(try Self.upstreamTraceparent(invalid).flatMap { TraceParent.parse(Array($0.utf8)) })
        #expect(replaced.traceID.hex != "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(try !ProxyFixture.echoedHeaders(invalid).contains { $0.0 == "tracestate" })

        // The access log carries each request's trace id.
        var traceIDs: [String] = []
        while traceIDs.count < 3 {
            let line = try #require(await blocking { fixture.gateway.nextOutputLine() }, "the gateway closed its output")
            #expect(!line.contains(Self.apiKey))
            guard let object = try? JSONParser().parse(line).objectValue, object["type"]?.stringValue == "access" else { continue }
            traceIDs.append(object["trace_id"]?.stringValue ?? "")
        }
        #expect(traceIDs == [continuedParent.traceID.hex, startedParent.traceID.hex, replaced.traceID.hex])

        var spans: [[String: Any]] = []
        #expect(await eventually {
            spans = (try? await Self.spans(receiver)) ?? []
            return spans.count >= 3
        }, "spans received: \(spans.count)")
        let span = try #require(spans.first { $0["traceId"] as? String == continuedParent.traceID.hex })
        #expect(span["encoding"] as? String == (encoding == "http/json" ? "json" : "protobuf"))
        #expect(span["spanId"] as? String == continuedParent.parentID.hex, "the upstream's parent is the exported span")
        #expect(span["parentSpanId"] as? String == "00f067aa0ba902b7")
        #expect(span["traceState"] as? String == "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
        #expect(span["name"] as? String == "GET")
        #expect(span["kind"] as? Int == 2)
        let start = try #require(span["startTimeUnixNano"] as? Int)
        let end = try #require(span["endTimeUnixNano"] as? Int)
        #expect(start > 1_600_000_000_000_000_000 && start <= end)
        let attributes = try #require(span["attributes"] as? [String: Any])
        #expect(attributes["http.request.method"] as? String == "GET")
        #expect(attributes["url.path"] as? String == "/echo")
        #expect(attributes["url.scheme"] as? String == "http")
        #expect(attributes["http.response.status_code"] as? Int == 200)
        #expect(attributes["server.address"] as? String == "127.0.0.1")
        #expect(attributes["server.port"] as? Int == port)
        #expect(attributes["client.address"] as? String == "127.0.0.1")
        #expect(attributes["user_agent.original"] as? String == "trace-test/1")
        let resource = try #require(span["resource"] as? [String: Any])
        #expect(resource["service.name"] as? String == "gateway-under-test")
        #expect(resource["deployment.environment.name"] as? String == "test")
        #expect(resource["team"] as? String == "a b")
        let headers = try #require(span["headers"] as? [[String]])
        #expect(headers.contains(["x-api-key", Self.apiKey]))
        let root = try #require(spans.first { $0["traceId"] as? String == startedParent.traceID.hex })
        #expect(root["parentSpanId"] as? String == "")
        #expect(root["spanId"] as? String == startedParent.parentID.hex)
        let fresh = try #require(spans.first { $0["traceId"] as? String == replaced.traceID.hex })
        #expect(fresh["parentSpanId"] as? String == "")
        #expect(fresh["traceState"] as? String == "")
        #expect(!fixture.gateway.logs.contains(Self.apiKey))
    }

    @Test("refusals and forward-auth's verify have spans and trace ids too; an unsampled caller's trace is not exported")
    func answeredByTheGateway() async throws {
        let receiver = try await Self.startReceiver()
        defer { receiver.stop() }
        let fixture = try await ProxyFixture.start([
            "ACCESS_LOG": "true", "PUBLIC_PATHS": "/echo",
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:\(receiver.port)/v1/traces",
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
            "OTEL_BSP_SCHEDULE_DELAY": "50",
        ])
        defer { fixture.stop() }
        let port = fixture.port
        let refused = try await blocking {
            try RawHTTPClient.get(port: port, "/private", headers: ["traceparent": Self.incoming, "Authorization": "Bearer garbage"])
        }
        #expect(refused.status == 401)
        let token = try IdentityTests.token()
        let verifyParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        let verified = try await blocking {
            try RawHTTPClient.get(port: port, "/.auth/verify", headers: [
                "traceparent": verifyParent, "Authorization": "Bearer \(token)", "X-Original-URI": "/private", "X-Original-Method": "GET",
            ])
        }
        #expect(verified.status == 200)
        let unsampled = try await blocking {
            try RawHTTPClient.get(port: port, "/echo", headers: ["traceparent": "00-11111111111111111111111111111111-2222222222222222-00"])
        }
        let unsampledParent = try #require(try Self.upstreamTraceparent(unsampled).flatMap { TraceParent.parse(Array($0.utf8)) })
        #expect(!unsampledParent.isSampled, "parentbased_always_on follows the caller's flag")
        #expect(unsampledParent.traceID.hex == "11111111111111111111111111111111")

        var spans: [[String: Any]] = []
        #expect(await eventually {
            spans = (try? await Self.spans(receiver)) ?? []
            return spans.count >= 2
        })
        let refusal = try #require(spans.first { $0["traceId"] as? String == "4bf92f3577b34da6a3ce929d0e0e4736" })
        #expect(refusal["parentSpanId"] as? String == "00f067aa0ba902b7")
        let refusalAttributes = try #require(refusal["attributes"] as? [String: Any])
        #expect(refusalAttributes["http.response.status_code"] as? Int == 401)
        #expect(refusalAttributes["appnative.auth.reason"] != nil)
        let verify = try #require(spans.first { $0["traceId"] as? String == "0af7651916cd43dd8448eb211c80319c" })
        #expect(verify["parentSpanId"] as? String == "b7ad6b7169203331")
        let verifyAttributes = try #require(verify["attributes"] as? [String: Any])
        #expect(verifyAttributes["appnative.auth.method"] as? String == "token")
        #expect(verifyAttributes["http.response.status_code"] as? Int == 200)
        let everything = try await blocking { try RawHTTPClient.get(port: receiver.port, "/spans").bodyText }
        #expect(!everything.contains(token) && !everything.contains(String(token.prefix(40))), "a token reached a span")
        #expect(!everything.contains("11111111111111111111111111111111"), "an unsampled trace was exported")
        var traceIDs: [String] = []
        while traceIDs.count < 3 {
            let line = try #require(await blocking { fixture.gateway.nextOutputLine() }, "the gateway closed its output")
            guard let object = try? JSONParser().parse(line).objectValue, object["type"]?.stringValue == "access" else { continue }
            traceIDs.append(object["trace_id"]?.stringValue ?? "")
        }
        #expect(traceIDs == ["4bf92f3577b34da6a3ce929d0e0e4736", "0af7651916cd43dd8448eb211c80319c", "11111111111111111111111111111111"])
    }

    @Test("WebSocket handshakes and native routes are traced like every forwarded request")
    func otherDoors() async throws {
        let receiver = try await Self.startReceiver()
        defer { receiver.stop() }
        let fixture = try await ProxyFixture.start([
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(receiver.port)", "OTEL_BSP_SCHEDULE_DELAY": "50",
        ])
        defer { fixture.stop() }
        let port = fixture.port
        // A complete WebSocket handshake keeps its upgrade; the echo peer answers it with 200 and
        // shows what it received.
        let handshake = try await blocking {
            try RawHTTPClient.get(port: port, "/echo/socket", headers: [
                "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
                "Sec-WebSocket-Version": "13", "traceparent": Self.incoming,
            ])
        }
        let echoed = try ProxyFixture.echoedHeaders(handshake)
        #expect(echoed.contains { $0.0 == "upgrade" && $0.1 == "websocket" }, "the handshake was forwarded as one")
        let upgraded = try #require(try Self.upstreamTraceparent(handshake).flatMap { TraceParent.parse(Array($0.utf8)) })
        #expect(upgraded.traceID.hex == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(upgraded.parentID.hex != "00f067aa0ba902b7")

        let token = try IdentityTests.token()
        let native = try await blocking {
            try RawHTTPClient.request(
                port: port, method: "POST", "/api/devices",
                headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json",
                          "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"],
                body: Array(#"{"device_id":"d1","push_token":"ab12"}"#.utf8))
        }
        #expect(native.status != 0)
        var spans: [[String: Any]] = []
        #expect(await eventually {
            spans = (try? await Self.spans(receiver)) ?? []
            return spans.count >= 2
        })
        let upgrade = try #require(spans.first { $0["traceId"] as? String == "4bf92f3577b34da6a3ce929d0e0e4736" })
        #expect(upgrade["spanId"] as? String == upgraded.parentID.hex)
        let route = try #require(spans.first { $0["traceId"] as? String == "0af7651916cd43dd8448eb211c80319c" })
        #expect(route["name"] as? String == "POST devices")
        #expect(route["parentSpanId"] as? String == "b7ad6b7169203331")
        let attributes = try #require(route["attributes"] as? [String: Any])
        #expect(attributes["appnative.native.route"] as? String == "devices")
        #expect(attributes["appnative.auth.method"] as? String == "token")
    }

    @Test("a collector that is down or slow neither fails nor holds requests: spans are dropped and counted")
    func unavailableCollector() async throws {
        let receiver = try await Self.startReceiver()
        defer { receiver.stop() }
        // Every export waits far longer than the test: the one export in flight holds its batch,
        // the queue of two fills, and the rest is dropped.
        _ = try await blocking { try RawHTTPClient.request(port: receiver.port, method: "POST", "/control?delay=600") }
        let slow = try await ProxyFixture.start([
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(receiver.port)",
            "OTEL_BSP_SCHEDULE_DELAY": "1", "OTEL_BSP_MAX_QUEUE_SIZE": "2", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "1",
            "OTEL_EXPORTER_OTLP_TIMEOUT": "60000",
        ])
        defer { slow.stop() }
        for _ in 0..<20 {
            let response = try await blocking { try RawHTTPClient.get(port: slow.port, "/echo") }
            #expect(response.status == 200)
        }
        let adminPort = slow.gateway.adminPort
        var dropped = 0
        #expect(await eventually {
            dropped = (try? await Self.metric("appnative_tracing_spans_dropped_total", adminPort: adminPort)) ?? 0
            return dropped > 0
        }, "dropped: \(dropped)")

        // Nothing listens at the endpoint: every export fails, is counted, and requests still pass.
        let closed = try ClosedLoopbackPort()
        let down = try await ProxyFixture.start([
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(closed.port)", "OTEL_BSP_SCHEDULE_DELAY": "1",
        ])
        defer { down.stop() }
        for _ in 0..<5 {
            let response = try await blocking { try RawHTTPClient.get(port: down.port, "/echo") }
            #expect(response.status == 200)
        }
        let downAdmin = down.gateway.adminPort
        var failed = 0
        #expect(await eventually {
            failed = (try? await Self.metric("appnative_tracing_spans_failed_total", adminPort: downAdmin)) ?? 0
            return failed > 0
        }, "failed: \(failed)")
    }
}
