public import AppNativeCore

/// The state of the groups looked up in a directory (Microsoft Graph) for callers with a groups
/// overage: the answers cached per user, the lookups in flight (one per user, every other
/// request of that user waits for it), the directory's throttling window and the application
/// token. A value type driven with the time as input, so tests run it without a clock or a socket;
/// the executor (`GraphGroupsSource`) performs what it decides, outside any lock.
///
/// Memory is bounded: at most `capacity` users and `maxCachedGroups` group ids in all; the entries
/// that expire first make room (with one TTL for all, the oldest). `ExpiringTable` bounds entries
/// only; here the total of ids is bounded too, since one user may bring 11,000 of them. A failure
/// is never cached.
public struct GroupsDirectoryState<Waiter: Sendable>: Sendable {
    /// A user of a tenant.
    public struct UserKey: Hashable, Sendable {
        public let objectID: String
        public let tenantID: String

        public init(objectID: String, tenantID: String) {
            self.objectID = objectID
            self.tenantID = tenantID
        }
    }

    /// What to do for a lookup.
    public enum Lookup: Sendable, Equatable {
        /// The cached groups: answer at once.
        case cached([String])
        /// The directory asked for no calls until this many seconds pass: answer unavailable.
        case throttled(retryAfterSeconds: Int)
        /// A lookup of the user is in flight: the waiter was queued and is answered when it ends.
        case joined
        /// Nothing known: the waiter was queued, and the caller performs the lookup, then `finish`.
        case fetch
    }

    /// How a lookup ended.
    public enum Result: Sendable, Equatable {
        case groups([String])
        /// Throttled for this many seconds (429 `Retry-After`).
        case throttled(retryAfterSeconds: Int)
        /// Any other failure: not cached, the next request asks again.
        case failed
    }

    private struct Entry: Sendable {
        var groups: [String]
        var expiresAt: Double
    }

    /// Seconds an answer is kept; 0 keeps none (single flight only).
    public let timeToLive: Double
    public let capacity: Int
    public let maxCachedGroups: Int
    /// An application token is renewed this long before its expiry (or at half its life, if sooner).
    public static var tokenRenewalMargin: Double { 300 }

    private var entries: [UserKey: Entry] = [:]
    /// Keys in insertion (= expiry) order from `head`; a mark whose expiry differs from its key's
    /// entry is stale and skipped.
    private var order: [(key: UserKey, expiresAt: Double)] = []
    private var head = 0
    public private(set) var cachedGroupCount = 0
    private var flights: [UserKey: [Waiter]] = [:]
    private var throttledUntil: Double?
    private var token: (value: Secret<String>, renewAt: Double)?

    public init(timeToLive: Duration, capacity: Int = 10_000, maxCachedGroups: Int = 1_000_000) {
        self.timeToLive = max(0, timeToLive.seconds)
        self.capacity = max(1, capacity)
        self.maxCachedGroups = max(1, maxCachedGroups)
    }

    /// Users cached (expired ones not yet pruned included).
    public var cachedUsers: Int { entries.count }
    /// Users with a lookup in flight.
    public var flightsInProgress: Int { flights.count }

    /// The cached groups of `key`, if fresh at `now` (no waiter queued).
    public func cachedGroups(of key: UserKey, now: Double) -> [String]? {
        guard let entry = entries[key], entry.expiresAt > now else { return nil }
        return entry.groups
    }

    /// Looks `key` up for `waiter`: cached, throttled, joined to the lookup in flight, or a new
    /// lookup the caller performs.
    public mutating func lookup(_ key: UserKey, waiter: Waiter, now: Double) -> Lookup {
        if let groups = cachedGroups(of: key, now: now) { return .cached(groups) }
        if flights[key] != nil {
            flights[key, default: []].append(waiter)
            return .joined
        }
        if let remaining = throttleRemaining(now: now) { return .throttled(retryAfterSeconds: remaining) }
        flights[key] = [waiter]
        return .fetch
    }

    /// Seconds left of the directory's throttling window, `nil` when none.
    public mutating func throttleRemaining(now: Double) -> Int? {
        guard let until = throttledUntil else { return nil }
        guard until > now else {
            throttledUntil = nil
            return nil
        }
        return max(1, Int((until - now).rounded(.up)))
    }

    /// Ends the lookup of `key` with `result`; returns every waiter to answer (the one that
    /// started it included).
    public mutating func finish(_ key: UserKey, with result: Result, now: Double) -> [Waiter] {
        let waiters = flights.removeValue(forKey: key) ?? []
        switch result {
        case .groups(let groups):
            store(groups, for: key, now: now)
        case .throttled(let seconds):
            let until = now + Double(max(1, seconds))
            throttledUntil = max(throttledUntil ?? until, until)
        case .failed:
            break
        }
        return waiters
    }

    // MARK: The application token

    /// The application token, while it is not near its expiry at `now`.
    public func applicationToken(now: Double) -> Secret<String>? {
        guard let token, token.renewAt > now else { return nil }
        return token.value
    }

    /// Keeps `token`, valid for `expiresInSeconds` from `now`, until near its expiry.
    public mutating func keepApplicationToken(_ value: Secret<String>, expiresInSeconds: Int, now: Double) {
        let lifetime = Double(max(0, expiresInSeconds))
        token = (value, now + lifetime - min(Self.tokenRenewalMargin, lifetime / 2))
    }

    /// Drops the application token (the directory refused it: a new one is requested next).
    public mutating func forgetApplicationToken() {
        token = nil
    }

    // MARK: The cache

    private mutating func store(_ groups: [String], for key: UserKey, now: Double) {
        removeExpired(now: now)
        if let old = entries.removeValue(forKey: key) { cachedGroupCount -= old.groups.count }
        guard timeToLive > 0, groups.count <= maxCachedGroups else { return }
        while entries.count >= capacity || cachedGroupCount + groups.count > maxCachedGroups, removeOldest() {}
        let expiresAt = now + timeToLive
        entries[key] = Entry(groups: groups, expiresAt: expiresAt)
        cachedGroupCount += groups.count
        order.append((key, expiresAt))
        compactOrder()
    }

    private mutating func removeExpired(now: Double) {
        while head < order.count, order[head].expiresAt <= now { _ = removeOldest() }
    }

    /// Removes the entry of the oldest mark; `false` when there is none.
    private mutating func removeOldest() -> Bool {
        guard head < order.count else { return false }
        let mark = order[head]
        head += 1
        if let entry = entries[mark.key], entry.expiresAt == mark.expiresAt {
            entries[mark.key] = nil
            cachedGroupCount -= entry.groups.count
        }
        compactOrder()
        return true
    }

    private mutating func compactOrder() {
        if head > 64, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
    }
}
