import AppNativeProxy
import AppNativeServer
import Testing

@Suite("Upstream address set")
struct UpstreamAddressSetTests {
    let a = SocketAddress(host: "127.0.0.2", port: 8000, family: .inet4)
    let b = SocketAddress(host: "127.0.0.3", port: 8000, family: .inet4)
    let c = SocketAddress(host: "127.0.0.4", port: 8000, family: .inet4)
    let second: UInt64 = 1_000_000_000

    @Test func unresolvedHasNothingToDial() {
        var set = UpstreamAddressSet(ejectFor: .seconds(10))
        #expect(!set.isResolved)
        let next = set.nextAddress(at: 0)
        #expect(next == nil)
        #expect(set.counts(at: 0) == (0, 0))
    }

    @Test func everyAddressTakesItsTurn() {
        var set = UpstreamAddressSet(ejectFor: .seconds(10))
        _ = set.resolved([a, b, c])
        let dialled = (0..<6).compactMap { _ in set.nextAddress(at: 0) }
        #expect(dialled == [a, b, c, a, b, c])
    }

    @Test func duplicatesAreDroppedAndTheAnswerIsCapped() {
        var set = UpstreamAddressSet(ejectFor: .seconds(10))
        let many = (0..<100).map { SocketAddress(host: "10.0.0.\($0)", port: 80, family: .inet4) }
        _ = set.resolved([a, a, b] + many)
        #expect(set.entries.count == UpstreamAddressSet.maxAddresses)
        #expect(set.entries.prefix(2).map(\.address) == [a, b])
    }

    @Test func anEjectedAddressIsSkippedUntilItsTimeIsUp() {
        var set = UpstreamAddressSet(ejectFor: .seconds(10))
        _ = set.resolved([a, b])
        let first = set.eject(a, at: 5 * second)
        let again = set.eject(a, at: 6 * second)
        #expect(first)
        #expect(!again, "already ejected")
        #expect(set.counts(at: 6 * second) == (1, 1))
        #expect((0..<4).compactMap { _ in set.nextAddress(at: 6 * second) } == [b, b, b, b])
        // The ejection is counted from the last refusal: 16 s.
        let beforeExpiry = set.nextAddress(at: 15 * second)
        #expect(beforeExpiry == b)
        #expect(Set((0..<2).compactMap { _ in set.nextAddress(at: 16 * second) }) == [a, b])
        #expect(set.counts(at: 16 * second) == (2, 0))
    }

    @Test func whenEveryAddressIsEjectedTheLeastRecentlyEjectedIsStillTried() {
        var set = UpstreamAddressSet(ejectFor: .seconds(10))
        _ = set.resolved([a, b, c])
        set.eject(b, at: 1 * second)
        set.eject(c, at: 2 * second)
        set.eject(a, at: 3 * second)
        let next = set.nextAddress(at: 4 * second)
        #expect(next == b)
        #expect(set.counts(at: 4 * second) == (0, 3))
    }

    @Test func aNewAnswerKeepsEjectionsOfAddressesStillListedAndReportsTheChange() {
        var set = UpstreamAddressSet(ejectFor: .seconds(10))
        _ = set.resolved([a, b])
        let generation = set.generation
        set.eject(b, at: 0)
        let change = set.resolved([b, c])
        #expect(change.added == [c])
        #expect(change.removed == [a])
        #expect(set.generation != generation)
        #expect(!set.isListed(a))
        #expect(set.isListed(b) && set.isListed(c))
        #expect(set.entries.first { $0.address == b }?.ejectedUntil == 10 * second)
        #expect((0..<3).compactMap { _ in set.nextAddress(at: second) } == [c, c, c])
    }

    @Test func theSameAnswerChangesNothing() {
        var set = UpstreamAddressSet(ejectFor: .seconds(10))
        _ = set.resolved([a, b])
        let generation = set.generation
        let change = set.resolved([a, b])
        #expect(change.isEmpty)
        #expect(set.generation == generation)
    }

    @Test func anEmptyAnswerKeepsTheLastAddresses() {
        var set = UpstreamAddressSet(ejectFor: .seconds(10))
        _ = set.resolved([a])
        let change = set.resolved([])
        #expect(change.isEmpty)
        #expect(set.isListed(a))
        let next = set.nextAddress(at: 0)
        #expect(next == a)
    }

    @Test func anUnlistedAddressIsNotEjected() {
        var set = UpstreamAddressSet(ejectFor: .seconds(10))
        _ = set.resolved([a])
        let ejected = set.eject(b, at: 0)
        #expect(!ejected)
        #expect(set.counts(at: 0) == (1, 0))
    }

    @Test func aFixedAddressIsResolvedFromTheStart() {
        var set = UpstreamAddressSet(fixed: [a], ejectFor: .seconds(10))
        #expect(set.isResolved)
        set.eject(a, at: 0)
        let next = set.nextAddress(at: 1)
        #expect(next == a, "the only address is still tried")
    }
}

@Suite("Upstream URL")
struct UpstreamURLTests {
    @Test(arguments: [
        ("http://backend.internal", "backend.internal", UInt16(80), "backend.internal"),
        ("http://backend.internal:80/api", "backend.internal", 80, "backend.internal"),
        ("https://app.azurewebsites.net", "app.azurewebsites.net", 443, "app.azurewebsites.net"),
        ("https://app.azurewebsites.net:8443", "app.azurewebsites.net", 8443, "app.azurewebsites.net:8443"),
        ("http://127.0.0.1:8000", "127.0.0.1", 8000, "127.0.0.1:8000"),
        ("http://[::1]:8000", "::1", 8000, "[::1]:8000"),
    ])
    func hostPortAndHostHeader(url: String, host: String, port: UInt16, hostHeader: String) throws {
        let configuration = try UpstreamConfiguration(url: url)
        #expect(configuration.target.host == host)
        #expect(configuration.target.port == port)
        #expect(configuration.hostHeader == hostHeader)
    }

    @Test func aNameThatDoesNotResolveIsNotAConfigurationError() throws {
        let configuration = try UpstreamConfiguration(url: "http://does-not-resolve.invalid:8000")
        #expect(configuration.target.literal == nil)
        #expect(!configuration.addresses.isResolved)
    }

    @Test func anIPLiteralIsResolvedWithoutALookup() throws {
        let configuration = try UpstreamConfiguration(url: "http://127.0.0.2:8000")
        #expect(configuration.addresses.isResolved)
        #expect(configuration.addresses.nextAddress() == SocketAddress(host: "127.0.0.2", port: 8000, family: .inet4))
    }

    @Test(arguments: ["http://host:0", "http://host:99999", "http://[::1", "http://[zz]:80", "http://ho st:80"])
    func invalidAuthoritiesAreRefused(url: String) {
        #expect(throws: UpstreamConfiguration.InvalidURL.self) { try UpstreamConfiguration(url: url) }
    }
}
