import AppNativeCore
public import AppNativeServer

/// The addresses one upstream URL's host currently resolves to, which of them are ejected, and
/// whose turn it is: resolution results, ejections and the time come in; the address to dial
/// next and whether a pooled connection's address is still listed come out. No I/O and no
/// clock of its own (`now` is the caller's monotonic nanoseconds), so tests drive it directly.
public struct UpstreamAddressSet: Sendable {
    /// One listed address and, while it is ejected, until when and since when.
    public struct Entry: Sendable, Equatable {
        public let address: SocketAddress
        /// Skipped for new connections until this instant (monotonic nanoseconds), or `nil`.
        public var ejectedUntil: UInt64?
    }

    /// Whether the host has resolved at least once.
    public enum State: Sendable, Equatable {
        /// Never resolved yet: there is nothing to dial.
        case unresolved
        /// The latest successful answer (a later failed lookup keeps it).
        case resolved([Entry])
    }

    /// What a new resolution answer changed.
    public struct Change: Sendable, Equatable {
        public var added: [SocketAddress]
        public var removed: [SocketAddress]
        public var isEmpty: Bool { added.isEmpty && removed.isEmpty }
    }

    /// The most addresses kept from one answer (they become metric labels).
    public static let maxAddresses = 64

    public private(set) var state = State.unresolved
    /// Increases whenever the listed addresses change (pools compare it to retire connections).
    public private(set) var generation: UInt64 = 0
    /// Whose turn it is next (an index into the listed addresses).
    private var cursor = 0
    /// How long an ejected address is skipped.
    public let ejectionNanoseconds: UInt64

    public init(ejectFor duration: Duration) {
        ejectionNanoseconds = duration.wholeNanoseconds
    }

    /// A fixed set (an IP literal in the URL): resolved from the start, never re-resolved.
    public init(fixed addresses: [SocketAddress], ejectFor duration: Duration) {
        self.init(ejectFor: duration)
        _ = resolved(addresses)
    }

    public var entries: [Entry] {
        if case .resolved(let entries) = state { return entries }
        return []
    }

    public var isResolved: Bool {
        if case .resolved = state { return true }
        return false
    }

    /// A successful lookup answered `addresses` (in the resolver's order, duplicates removed,
    /// capped at `maxAddresses`). An address still listed keeps its ejection; an empty answer
    /// keeps the previous set (a lookup that finds nothing is treated as a failed one).
    public mutating func resolved(_ addresses: [SocketAddress]) -> Change {
        var unique: [SocketAddress] = []
        for address in addresses where !unique.contains(address) && unique.count < Self.maxAddresses {
            unique.append(address)
        }
        guard !unique.isEmpty else { return Change(added: [], removed: []) }
        let previous = entries
        let kept = unique.map { address in
            previous.first { $0.address == address } ?? Entry(address: address, ejectedUntil: nil)
        }
        let change = Change(
            added: unique.filter { address in !previous.contains { $0.address == address } },
            removed: previous.map(\.address).filter { !unique.contains($0) }
        )
        if !change.isEmpty || !isResolved {
            generation &+= 1
            if cursor >= kept.count { cursor = 0 }
        }
        state = .resolved(kept)
        return change
    }

    /// The address the next new connection dials: the listed ones in turn, skipping ejected
    /// ones; when every address is ejected, the one whose ejection ends first (the least
    /// recently ejected) rather than none. `nil` only while unresolved.
    public mutating func nextAddress(at now: UInt64) -> SocketAddress? {
        guard case .resolved(let entries) = state, !entries.isEmpty else { return nil }
        for step in 0..<entries.count {
            let index = (cursor + step) % entries.count
            if entries[index].isAvailable(at: now) {
                cursor = (index + 1) % entries.count
                return entries[index].address
            }
        }
        var earliest = 0
        for index in entries.indices where (entries[index].ejectedUntil ?? 0) < (entries[earliest].ejectedUntil ?? 0) {
            earliest = index
        }
        cursor = (earliest + 1) % entries.count
        return entries[earliest].address
    }

    /// A connection to `address` was refused or timed out: skip it until `now` plus the
    /// ejection time. Returns whether it was listed and not already ejected.
    @discardableResult
    public mutating func eject(_ address: SocketAddress, at now: UInt64) -> Bool {
        guard case .resolved(var entries) = state, let index = entries.firstIndex(where: { $0.address == address }) else {
            return false
        }
        let wasAvailable = entries[index].isAvailable(at: now)
        entries[index].ejectedUntil = now + ejectionNanoseconds
        state = .resolved(entries)
        return wasAvailable
    }

    /// Whether connections to `address` may stay pooled (it is still in the latest answer).
    public func isListed(_ address: SocketAddress) -> Bool {
        entries.contains { $0.address == address }
    }

    /// How many listed addresses are available, and how many ejected, at `now`.
    public func counts(at now: UInt64) -> (healthy: Int, ejected: Int) {
        let healthy = entries.count { $0.isAvailable(at: now) }
        return (healthy, entries.count - healthy)
    }

    /// How many more addresses a failed connect may move on to (each listed address once).
    public var addressCount: Int { entries.count }
}

extension UpstreamAddressSet.Entry {
    func isAvailable(at now: UInt64) -> Bool {
        guard let ejectedUntil else { return true }
        return now >= ejectedUntil
    }
}
