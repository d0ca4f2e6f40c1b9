@testable import AppNativeProxy
import AppNativeServer
import Testing

@Suite("Upstream pool state")
struct UpstreamPoolStateTests {
    typealias Pool = UpstreamPoolState<FakeConnection>
    let listedEverything: (SocketAddress) -> Bool = { _ in true }

    private func giveBack(_ connection: FakeConnection, to pool: inout Pool, now: UInt64 = 0) -> Pool.GiveBackAction {
        var retiring: [FakeConnection] = []
        let action = pool.giveBack(connection, connectionGeneration: 1, generation: 1, isListed: listedEverything, now: now, retiring: &retiring)
        #expect(retiring.isEmpty)
        return action
    }

    private func take(from pool: inout Pool) -> FakeConnection? {
        var retiring: [FakeConnection] = []
        return pool.takeIdle(generation: 1, isListed: listedEverything, retiring: &retiring)
    }

    @Test func keptConnectionsExpireAfterTheIdleTimeout() {
        var pool = Pool(maxIdle: 4, idleTimeoutNanoseconds: 30, generation: 1)
        let connection = FakeConnection()
        pool.opened()
        guard case .keep(let expiry) = giveBack(connection, to: &pool, now: 100) else {
            Issue.record("kept connection expected")
            return
        }
        #expect(expiry == 130)
        #expect(pool.idle.count == 1)
    }

    @Test func theWarmestIdleConnectionIsTakenFirst() {
        var pool = Pool(maxIdle: 4, idleTimeoutNanoseconds: 30, generation: 1)
        let first = FakeConnection()
        let second = FakeConnection()
        _ = giveBack(first, to: &pool)
        _ = giveBack(second, to: &pool)
        #expect(take(from: &pool) === second)
        #expect(take(from: &pool) === first)
        #expect(take(from: &pool) == nil)
    }

    @Test func beyondTheIdleLimitConnectionsClose() {
        var pool = Pool(maxIdle: 2, idleTimeoutNanoseconds: 30, generation: 1)
        let connections = (0..<3).map { _ in FakeConnection() }
        let actions = connections.map { giveBack($0, to: &pool) }
        guard case .keep = actions[0], case .keep = actions[1], case .close = actions[2] else {
            Issue.record("two kept, the third closed expected: \(actions)")
            return
        }
        #expect(pool.idle.count == 2)
    }

    @Test func aClosedIdleConnectionLeavesTheList() {
        var pool = Pool(maxIdle: 4, idleTimeoutNanoseconds: 30, generation: 1)
        let idle = FakeConnection()
        let busy = FakeConnection()
        pool.opened()
        pool.opened()
        _ = giveBack(idle, to: &pool)
        #expect(pool.openCount == 2)
        let check1 = pool.closed(busy) == false
        #expect(check1)
        let check2 = pool.closed(idle) == true
        #expect(check2)
        #expect(pool.openCount == 0)
        #expect(pool.idle.isEmpty)
    }

    @Test func aRetiredPoolKeepsNothing() {
        var pool = Pool(maxIdle: 4, idleTimeoutNanoseconds: 30, generation: 1)
        let idle = FakeConnection()
        _ = giveBack(idle, to: &pool)
        let closing = pool.retire()
        #expect(closing.count == 1 && closing[0] === idle)
        #expect(pool.isRetired)
        guard case .retire = giveBack(FakeConnection(), to: &pool) else {
            Issue.record("a connection given back to a retired pool closes as retired")
            return
        }
        #expect(take(from: &pool) == nil)
    }

    @Test func connectionsToAddressesNoLongerListedAreRetired() {
        var pool = Pool(maxIdle: 4, idleTimeoutNanoseconds: 30, generation: 1)
        let toA = FakeConnection(FakeConnection.a)
        let toB = FakeConnection(FakeConnection.b)
        _ = giveBack(toA, to: &pool)
        _ = giveBack(toB, to: &pool)
        // The addresses moved to generation 2, which lists only b.
        var retiring: [FakeConnection] = []
        let taken = pool.takeIdle(generation: 2, isListed: { $0 == FakeConnection.b }, retiring: &retiring)
        #expect(retiring.count == 1 && retiring[0] === toA)
        #expect(taken === toB)
        // A connection to a (last known listed in generation 1) coming back is retired too.
        retiring = []
        let action = pool.giveBack(
            FakeConnection(FakeConnection.a), connectionGeneration: 1, generation: 2,
            isListed: { $0 == FakeConnection.b }, now: 0, retiring: &retiring
        )
        guard case .retire = action else {
            Issue.record("a connection to an unlisted address is retired, not kept")
            return
        }
        // The generation is checked once per change: b's connection, given back, is kept.
        guard case .keep = pool.giveBack(toB, connectionGeneration: 1, generation: 2, isListed: { $0 == FakeConnection.b }, now: 0, retiring: &retiring) else {
            Issue.record("a connection to a listed address is kept")
            return
        }
        #expect(retiring.isEmpty)
    }
}
