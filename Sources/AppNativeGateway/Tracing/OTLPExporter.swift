public import AppNativeClient
import Dispatch
public import AppNativeCore
public import AppNativeProxy

/// Sends the gateway's sampled server spans to an OTLP/HTTP collector in batches.
///
/// The event loops only append to a bounded queue under a short lock (`record`); when the queue
/// is full the span is dropped and counted (`tracing.spans.dropped`), so a slow or absent
/// collector never makes a request wait. One task off the loops takes a batch when it is full
/// or when `OTEL_BSP_SCHEDULE_DELAY` has passed, encodes it and sends it through libcurl's
/// worker, one export at a time; a batch that fails is dropped and counted, not retried.
public final class OTLPExporter: SpanRecording, Sendable {
    private struct State {
        var spans: [ExchangeSpan] = []
        /// The export task, asleep until a batch is full or the delay passes.
        var waiter: CheckedContinuation<Void, Never>?
        /// Tells one wait from the next, so a late timer cannot cut a later wait short.
        var waitGeneration = 0
        var isStopped = false
    }

    private let export: TracingConfiguration.Export
    private let state = Locked(State())
    private let client: any HTTPFetching
    private let logger: Logger
    private let dropped: Counter
    private let exported: Counter
    private let failedSpans: Counter
    private let scopeVersion: String
    private let task = Locked<Task<Void, Never>?>(nil)

    public init(
        export: TracingConfiguration.Export, client: (any HTTPFetching)? = nil, metrics: MetricsRegistry, logger: Logger
    ) {
        self.export = export
        self.client = client ?? CurlHTTPClient(userAgent: GatewayVersion.userAgent)
        self.logger = logger
        dropped = metrics.counter(MetricCatalogue.tracingSpansDropped)
        exported = metrics.counter(MetricCatalogue.tracingSpansExported)
        failedSpans = metrics.counter(MetricCatalogue.tracingSpansFailed)
        scopeVersion = GatewayVersion.current
    }

    /// Queues `span` for export, or drops it when the queue is full. Never waits.
    public func record(_ span: ExchangeSpan) {
        let maxQueue = export.maxQueueSize
        let maxBatch = export.maxBatchSize
        let (accepted, wake) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            guard !state.isStopped, state.spans.count < maxQueue else { return (false, nil) }
            state.spans.append(span)
            guard state.spans.count >= maxBatch, let waiter = state.waiter else { return (true, nil) }
            state.waiter = nil
            return (true, waiter)
        }
        if !accepted { dropped.increment() }
        wake?.resume()
    }

    /// Starts the export task.
    public func start() {
        let task = Task.detached { [self] in await run() }
        self.task.withLock { $0 = task }
    }

    /// Stops taking spans and sends what is queued, waiting at most the export timeout per
    /// remaining batch (called at shutdown, once the requests have drained).
    public func stop() {
        let (waiter, batches) = state.withLock { state in
            state.isStopped = true
            defer { state.waiter = nil }
            return (state.waiter, (state.spans.count + export.maxBatchSize - 1) / export.maxBatchSize)
        }
        waiter?.resume()
        guard let task = task.withLock({ $0 }) else { return }
        let finished = DispatchSemaphore(value: 0)
        Task.detached {
            await task.value
            finished.signal()
        }
        _ = finished.wait(timeout: .now() + .milliseconds(Int(export.timeout / .milliseconds(1)) * max(1, batches) + 100))
    }

    private func run() async {
        while true {
            await waitForBatch()
            let (batch, isLast) = state.withLock { state in
                let count = min(state.spans.count, export.maxBatchSize)
                let batch = Array(state.spans.prefix(count))
                state.spans.removeFirst(count)
                return (batch, state.isStopped && state.spans.isEmpty)
            }
            if !batch.isEmpty { await send(batch) }
            if isLast { return }
        }
    }

    /// Returns when a batch is full, the schedule delay has passed, or the exporter stops.
    private func waitForBatch() async {
        let maxBatch = export.maxBatchSize
        let delay = export.scheduleDelay
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let generation: Int? = state.withLock { state in
                if state.isStopped || state.spans.count >= maxBatch { return nil }
                state.waitGeneration += 1
                state.waiter = continuation
                return state.waitGeneration
            }
            guard let generation else {
                continuation.resume()
                return
            }
            Task.detached { [state] in
                try? await SystemTimeSource().sleep(for: delay)
                let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    guard state.waitGeneration == generation, let waiter = state.waiter else { return nil }
                    state.waiter = nil
                    return waiter
                }
                waiter?.resume()
            }
        }
    }

    private func send(_ spans: [ExchangeSpan]) async {
        let batch = OTLPBatch(resource: export.resource, scopeName: "app-native-gateway", scopeVersion: scopeVersion, spans: spans)
        let body = export.encoding == .json ? batch.jsonBody : batch.protobufBody
        var request = HTTPRequest(
            url: export.url, method: "POST",
            headers: export.headers.revealed + [HTTPHeaderField(name: "Content-Type", value: export.encoding.contentType)],
            body: body, timeout: export.timeout, maxResponseBytes: 64 * 1024)
        request.truncatesLargeResponses = true
        request.allowsCleartextOnLoopback = true
        request.caFile = export.caFile
        do {
            let response = try await client.send(request)
            if (200..<300).contains(response.status) {
                exported.increment(by: spans.count)
            } else {
                failedSpans.increment(by: spans.count)
                logger.warning("span export refused", ["http.status": String(response.status), "tracing.spans": String(spans.count)])
            }
        } catch {
            // The error names the failure and the host, never the configured headers.
            failedSpans.increment(by: spans.count)
            logger.warning("span export failed", ["error": "\(error.code)", "tracing.spans": String(spans.count)])
        }
    }
}

