import AppNativeServer

/// A connection to one of the upstream's addresses, as the pool and the exchange machines see it:
/// an identity and the address it dialled. `UpstreamConnection` is one; tests use plain objects.
protocol DialledConnection: AnyObject {
    /// The address dialled (one of the upstream's resolved addresses).
    var address: SocketAddress { get }
}

/// The idle connections of one pool on one loop, and what becomes of a connection an exchange
/// gives back: kept (under the idle limit), or closed because the route was retired, its address
/// is no longer listed, or the idle list is full. Pure: the pool performs what it returns
/// (closing, arming the idle expiry, the metrics) after the transition, so a connection's close
/// reporting back to the pool never finds the list half-changed.
struct UpstreamPoolState<Connection: DialledConnection> {
    /// Where the pool is in its life.
    private enum Phase {
        /// Idle connections, most recently used last (LIFO keeps the warmest one), and the
        /// addresses' generation the list was last checked against.
        case serving(idle: [Connection], checkedGeneration: UInt64)
        /// The route was reloaded away: nothing is kept idle any more.
        case retired
    }

    private var phase: Phase
    /// Connections open (idle or serving an exchange).
    private(set) var openCount = 0
    let maxIdle: Int
    let idleTimeoutNanoseconds: UInt64

    init(maxIdle: Int, idleTimeoutNanoseconds: UInt64, generation: UInt64) {
        self.maxIdle = maxIdle
        self.idleTimeoutNanoseconds = idleTimeoutNanoseconds
        phase = .serving(idle: [], checkedGeneration: generation)
    }

    /// The idle connections, most recently used last.
    var idle: [Connection] {
        if case .serving(let idle, _) = phase { return idle }
        return []
    }

    var isRetired: Bool {
        if case .retired = phase { return true }
        return false
    }

    /// What the pool does with a connection an exchange gave back.
    enum GiveBackAction {
        /// Kept idle; its idle expiry is armed at `expiry`.
        case keep(expiry: UInt64)
        /// Closed and counted as retired (the route or its address went away).
        case retire
        /// Closed: the idle list is full.
        case close
    }

    // MARK: Events

    /// A new connection was started.
    mutating func opened() {
        openCount += 1
    }

    /// `connection` closed (whichever way); returns whether it was idle (it leaves the list).
    mutating func closed(_ connection: Connection) -> Bool {
        openCount -= 1
        guard case .serving(var idle, let generation) = phase, let index = idle.lastIndex(where: { $0 === connection }) else {
            return false
        }
        phase = .retired  // the list is moved out, so removing from it does not copy it
        idle.remove(at: index)
        phase = .serving(idle: idle, checkedGeneration: generation)
        return true
    }

    /// Takes the warmest idle connection, if any, after dropping (into `retiring`) those whose
    /// address the addresses' `generation` no longer lists.
    mutating func takeIdle(
        generation: UInt64,
        isListed: (SocketAddress) -> Bool,
        retiring: inout [Connection]
    ) -> Connection? {
        retireUnlisted(generation: generation, isListed: isListed, into: &retiring)
        guard case .serving(var idle, let checked) = phase, !idle.isEmpty else { return nil }
        phase = .retired
        let connection = idle.removeLast()
        phase = .serving(idle: idle, checkedGeneration: checked)
        return connection
    }

    /// An exchange ended with `connection` reusable. `connectionGeneration` is the addresses'
    /// generation the connection's address was last known to be listed in.
    mutating func giveBack(
        _ connection: Connection,
        connectionGeneration: UInt64,
        generation: UInt64,
        isListed: (SocketAddress) -> Bool,
        now: UInt64,
        retiring: inout [Connection]
    ) -> GiveBackAction {
        guard case .serving = phase else { return .retire }
        retireUnlisted(generation: generation, isListed: isListed, into: &retiring)
        if connectionGeneration != generation, !isListed(connection.address) { return .retire }
        guard case .serving(var idle, let checked) = phase, idle.count < maxIdle else { return .close }
        phase = .retired
        idle.append(connection)
        phase = .serving(idle: idle, checkedGeneration: checked)
        return .keep(expiry: now + idleTimeoutNanoseconds)
    }

    /// The route was dropped or changed by a reload: returns the idle connections, to close.
    mutating func retire() -> [Connection] {
        let idle = self.idle
        phase = .retired
        return idle
    }

    /// Moves idle connections to addresses no longer listed into `retiring` (once per change of
    /// `generation`).
    mutating func retireUnlisted(generation: UInt64, isListed: (SocketAddress) -> Bool, into retiring: inout [Connection]) {
        guard case .serving(var idle, let checked) = phase, checked != generation else { return }
        phase = .retired
        var index = idle.startIndex
        while index < idle.endIndex {
            if isListed(idle[index].address) {
                index += 1
            } else {
                retiring.append(idle.remove(at: index))
            }
        }
        phase = .serving(idle: idle, checkedGeneration: generation)
    }
}
