public import AppNativeCore
public import AppNativeServer
import AppNativeHTTP
import Glibc

/// One JSON line per request on standard output: request id, method, path without the query
/// string (it may carry tokens), W3C trace id, status, bytes, durations. Never headers, tokens or cookies.
public final class AccessLog: Sendable {
    private let isEnabled: Bool
    private let requests: [Counter]
    /// Requests by the protocol they came over: HTTP/1.x, then HTTP/2.
    private let requestsByProtocol: [Counter]
    private let duration: Histogram
    private let upstreamDuration: Histogram

    public init(enabled: Bool, metrics: MetricsRegistry) {
        isEnabled = enabled
        requests = (1...5).map { metrics.counter(MetricCatalogue.httpRequests, labels: ["status": "\($0)xx"]) }
        duration = metrics.histogram(MetricCatalogue.httpRequestDuration)
        upstreamDuration = metrics.histogram(MetricCatalogue.upstreamDuration)
        requestsByProtocol = ["http/1.1", "h2"].map { metrics.counter(MetricCatalogue.httpRequestsByProtocol, labels: ["protocol": $0]) }
    }

    /// - Parameter traceID: the W3C trace id of the request (continued or started by the gateway);
    ///   rendered only when the line is written.
    public func record(
        _ exchange: HTTPExchange, requestID: String, traceID: @autoclosure () -> String? = nil, upstreamNanoseconds: UInt64?,
        extra: LogFields = LogFields()
    ) {
        let elapsed = Double(exchange.loop.nowNanoseconds - exchange.startedAt) / 1e9
        let status = exchange.responseStatus
        if (100...599).contains(status) { requests[status / 100 - 1].increment() }
        let isHTTP2 = exchange.request.version.major == 2
        requestsByProtocol[isHTTP2 ? 1 : 0].increment()
        duration.observe(elapsed)
        if let upstreamNanoseconds, upstreamNanoseconds > 0 { upstreamDuration.observe(Double(upstreamNanoseconds) / 1e9) }
        guard isEnabled else { return }
        var path = exchange.request.target
        if let query = path.firstIndex(of: "?") { path = String(path[..<query]) }
        var line = "{\"type\":\"access\",\"request_id\":"
        LogLine.appendQuoted(requestID, to: &line)
        if let traceID = traceID() {
            line += ",\"trace_id\":"
            LogLine.appendQuoted(traceID, to: &line)
        }
        line += ",\"method\":"
        LogLine.appendQuoted(exchange.request.method, to: &line)
        line += ",\"path\":"
        LogLine.appendQuoted(path, to: &line)
        line += ",\"status\":\(status),\"bytes\":\(exchange.responseBodyBytes)"
        if isHTTP2 { line += ",\"protocol\":\"h2\"" }
        // A response cut short (upstream failure, client gone) says so: the status alone would
        // claim an answer the client did not get whole.
        if status != 0 && !exchange.isResponseComplete { line += ",\"complete\":false" }
        line += ",\"duration_ms\":" + String(format: "%.3f", elapsed * 1000)
        if let upstreamNanoseconds, upstreamNanoseconds > 0 {
            line += ",\"upstream_ms\":" + String(format: "%.3f", Double(upstreamNanoseconds) / 1e6)
        }
        for (key, value) in extra.sortedByKey {
            line += ","
            LogLine.appendQuoted(key, to: &line)
            line += ":"
            LogLine.appendQuoted(value, to: &line)
        }
        line += "}\n"
        // unsafe: write(2) reads count bytes from the string's own UTF-8 storage, valid inside withUTF8.
        line.withUTF8 { _ = unsafe Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
    }
}

import Foundation
