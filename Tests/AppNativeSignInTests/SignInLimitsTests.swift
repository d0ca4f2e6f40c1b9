import AppNativeSignIn
import Testing

/// The bounded tables behind the sign-in's limits: the consumed states and the per-address rate
/// limiter, driven by an explicit clock.
@Suite("Sign-in limits")
struct SignInLimitsTests {
    @Test("the expiring table keeps every unexpired entry, refuses a new key when full, and prunes expired ones")
    func expiringTable() {
        var table = ExpiringTable<String, Int>(capacity: 3)
        do {
            let outcome = table.insert(1, for: "a", expiresAt: 100, now: 0)
            #expect(outcome)
        }
        do {
            let outcome = table.insert(2, for: "b", expiresAt: 50, now: 0)
            #expect(outcome)
        }
        do {
            let outcome = table.insert(3, for: "c", expiresAt: 200, now: 0)
            #expect(outcome)
        }
        do {
            let outcome = !table.insert(4, for: "d", expiresAt: 300, now: 10)
            #expect(outcome)
        }
        #expect(table.value(for: "b", now: 10) == 2 && table.value(for: "a", now: 10) == 1 && table.value(for: "c", now: 10) == 3)
        // An existing key is updated even when full.
        do {
            let outcome = table.insert(5, for: "a", expiresAt: 150, now: 10)
            #expect(outcome)
        }
        do {
            let outcome = table.earliestExpiry(now: 10) == 50
            #expect(outcome)
        }
        // "b" expires at 50: room for one.
        #expect(table.value(for: "b", now: 50) == nil)
        do {
            let outcome = table.insert(4, for: "d", expiresAt: 300, now: 50)
            #expect(outcome)
        }
        #expect(table.count == 3)
        // "a"'s old expiry (100) is stale: it is still there at 120.
        table.removeExpired(now: 120)
        #expect(table.value(for: "a", now: 120) == 5)
        do {
            let outcome = table.earliestExpiry(now: 120) == 150
            #expect(outcome)
        }
        table.removeEarliest()
        #expect(table.value(for: "a", now: 120) == nil)
        #expect(table.count == 2)
    }

    @Test("many updates of one key keep the heap bounded and the answers right")
    func manyUpdates() {
        var table = ExpiringTable<String, Int>(capacity: 4)
        for step in 0..<10_000 {
            let inserted = table.insert(step, for: "k", expiresAt: Int64(1000 + step), now: 0)
            #expect(inserted)
        }
        #expect(table.count == 1)
        #expect(table.value(for: "k", now: 10_000) == 9999)
        do {
            let outcome = table.earliestExpiry(now: 0) == 10_999
            #expect(outcome)
        }
        table.removeExpired(now: 11_000)
        #expect(table.count == 0)
    }

    @Test("consumed states: a replay is refused, a full table refuses new states and forgets none unexpired")
    func consumedStates() {
        let consumed = ConsumedSignInStates(capacity: 8)
        for index in 0..<8 { #expect(consumed.consume("s\(index)", expiresAt: Int64(1000 + index), now: 10) == .fresh) }
        #expect(consumed.retryAfterIfFull(now: 10) == 600)
        #expect(consumed.consume("new", expiresAt: 2000, now: 10) == .full(retryAfterSeconds: 600))
        // Every one of the first eight is still a replay.
        for index in 0..<8 { #expect(consumed.consume("s\(index)", expiresAt: Int64(1000 + index), now: 999) == .replayed) }
        #expect(consumed.count == 8)
        // The first expires at 1000: room again, for exactly one.
        #expect(consumed.retryAfterIfFull(now: 1000) == nil)
        #expect(consumed.consume("new", expiresAt: 2000, now: 1000) == .fresh)
        #expect(consumed.consume("other", expiresAt: 2000, now: 1000) == .full(retryAfterSeconds: 1))
        // An expired entry is no replay any more (its cookie has expired too).
        #expect(consumed.consume("s0", expiresAt: 3000, now: 1500) == .fresh)
    }

    @Test("rate limiter: a burst of perMinute, then limited with Retry-After, refilled over the minute; keys are separate")
    func rateLimiter() {
        var limiter = SignInRateLimiter(perMinute: 6, capacity: 100)
        for _ in 0..<6 { #expect(limiter.take("a", now: 100) == .allowed) }
        do {
            let outcome = limiter.take("a", now: 100) == .limited(retryAfterSeconds: 10)
            #expect(outcome)
        }
        do {
            let outcome = limiter.take("b", now: 100) == .allowed
            #expect(outcome)
        }
        do {
            let outcome = limiter.take("a", now: 105) == .limited(retryAfterSeconds: 5)
            #expect(outcome)
        }
        do {
            let outcome = limiter.take("a", now: 110) == .allowed
            #expect(outcome)
        }
        do {
            let outcome = limiter.take("a", now: 110) == .limited(retryAfterSeconds: 10)
            #expect(outcome)
        }
        // A minute later the bucket is full again.
        for _ in 0..<6 { #expect(limiter.take("a", now: 180) == .allowed) }
    }

    @Test("rate limiter memory stays bounded whatever keys arrive, and a limited key stays limited among them")
    func rateLimiterBounded() {
        var limiter = SignInRateLimiter(perMinute: 2, capacity: 64)
        do {
            let outcome = limiter.take("flooder", now: 0) == .allowed
            #expect(outcome)
        }
        do {
            let outcome = limiter.take("flooder", now: 0) == .allowed
            #expect(outcome)
        }
        do {
            let outcome = limiter.take("flooder", now: 0) != .allowed
            #expect(outcome)
        }
        for index in 0..<10_000 {
            _ = limiter.take("addr-\(index)", now: 1)
            #expect(limiter.count <= 64)
        }
        // Refilled buckets expire: the table empties itself as time passes.
        _ = limiter.take("late", now: 1000)
        #expect(limiter.count <= 64)
    }
}
