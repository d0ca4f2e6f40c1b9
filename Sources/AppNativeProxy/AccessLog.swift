public import AppNativeCore
public import AppNativeServer
import AppNativeHTTP
import Glibc

/// One JSON line per request on standard output: request id, method, path without the query
/// string (it may carry tokens), status, bytes, durations. Never headers, tokens or cookies.
public final class AccessLog: Sendable {
    private let isEnabled: Bool
    private let requests: [Counter]
    /// Requests by the protocol they came over: HTTP/1.x, then HTTP/2.
    private let requestsByProtocol: [Counter]
    private let duration: Histogram
    private let upstreamDuration: Histogram

    public init(enabled: Bool, metrics: MetricsRegistry) {
        isEnabled = enabled
        requests = (1...5).map { metrics.counter("http.requests", labels: ["status": "\($0)xx"], help: "Requests by status class") }
        requestsByProtocol = ["http/1.1", "h2"].map {
            metrics.counter("http.requests.protocol", labels: ["protocol": $0], help: "Requests by protocol (http/1.1 counts HTTP/1.0 too)")
        }
        let bounds = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]
        duration = metrics.histogram("http.request.duration_seconds", upperBounds: bounds, help: "Request duration")
        upstreamDuration = metrics.histogram("upstream.duration_seconds", upperBounds: bounds, help: "Time to the upstream's response head")
    }

    public func record(_ exchange: HTTPExchange, requestID: String, upstreamNanoseconds: UInt64?, extra: LogFields = LogFields()) {
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
        line.withUTF8 { _ = Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
    }
}

import Foundation
