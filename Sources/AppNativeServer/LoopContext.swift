import AppNativeCore
import AppNativeHTTP

/// Handles the exchanges of one event loop. One instance per loop (built by the server's factory),
/// so its state (an upstream pool, say) is loop-owned and needs no locks.
public protocol HTTPExchangeHandler: AnyObject {
    /// A request head arrived; answer through `exchange`.
    func serve(_ exchange: HTTPExchange)
    /// The exchange is over (response finished or aborted): the access-log moment.
    func exchangeDidEnd(_ exchange: HTTPExchange)
}

/// Per-loop server state: configuration, the handler, the loop's connections and scratch space.
final class LoopContext {
    let loop: EventLoop
    let configuration: ServerConfiguration
    let handler: any HTTPExchangeHandler
    let shared: ServerShared
    /// Receive buffer shared by the loop's connections; leftovers are copied out before returning.
    var scratch = [UInt8](repeating: 0, count: 64 * 1024)
    private(set) var connections: [ServerConnection] = []
    var isDraining = false
    /// The connection timeouts in nanoseconds, converted once: a deadline is set several times
    /// per request.
    let keepAliveNanoseconds: UInt64
    let headerNanoseconds: UInt64
    let bodyIdleNanoseconds: UInt64
    let writeNanoseconds: UInt64

    init(loop: EventLoop, configuration: ServerConfiguration, handler: any HTTPExchangeHandler, shared: ServerShared) {
        self.loop = loop
        self.configuration = configuration
        self.handler = handler
        self.shared = shared
        keepAliveNanoseconds = configuration.keepAliveTimeout.wholeNanoseconds
        headerNanoseconds = configuration.headerTimeout.wholeNanoseconds
        bodyIdleNanoseconds = configuration.bodyIdleTimeout.wholeNanoseconds
        writeNanoseconds = configuration.writeTimeout.wholeNanoseconds
    }

    func add(_ connection: ServerConnection) {
        connection.registryIndex = connections.count
        connections.append(connection)
    }

    func remove(_ connection: ServerConnection) {
        let index = connection.registryIndex
        guard index >= 0, index < connections.count, connections[index] === connection else { return }
        let last = connections.removeLast()
        if index < connections.count {
            connections[index] = last
            last.registryIndex = index
        }
        connection.registryIndex = -1
    }
}

/// State shared by every loop of a server: counters only, all atomic.
final class ServerShared: Sendable {
    let openConnections: Gauge
    let acceptedConnections: Counter
    let rejectedConnections: Counter
    let parseErrors: Counter
    let timeouts: Counter
    let http2Connections: Counter

    init(metrics: MetricsRegistry) {
        openConnections = metrics.gauge(MetricCatalogue.httpConnectionsOpen)
        acceptedConnections = metrics.counter(MetricCatalogue.httpConnectionsAccepted)
        rejectedConnections = metrics.counter(MetricCatalogue.httpConnectionsRejected)
        parseErrors = metrics.counter(MetricCatalogue.httpErrors, labels: ["cause": "bad_request"])
        timeouts = metrics.counter(MetricCatalogue.httpErrors, labels: ["cause": "client_timeout"])
        http2Connections = metrics.counter(MetricCatalogue.httpConnectionsHTTP2)
    }
}
