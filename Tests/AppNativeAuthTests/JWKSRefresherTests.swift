import AppNativeAuth
import AppNativeCore
import AppNativeCrypto
import AppNativeTesting
import Foundation
import Testing

/// The background refresher: keys load without any request, failures back off (capped, with
/// jitter), loaded keys are reloaded on schedule. Driven by the manual clock: no real sleeps.
@Suite("JWKS background refresher")
struct JWKSRefresherTests {
    struct Harness {
        let factory: TestTokenFactory
        let fetcher: CountingFetcher
        let time = ManualTimeSource(wallSeconds: EntraFixture.start)
        let cache: JWKSCache

        /// - Parameter jitter: the fixed jitter; 1 gives the delays before jitter exactly.
        init(fetcher: (TestTokenFactory) -> CountingFetcher, jitter: Double = 1) throws {
            factory = try TestTokenFactory.trusted()
            self.fetcher = fetcher(factory)
            cache = JWKSCache(
                fetcher: self.fetcher, time: time, logger: .disabled, metrics: MetricsRegistry(), jitter: { jitter })
        }

        /// Waits until `downloads` downloads ended and the refresher sleeps; returns its delay.
        func sleepAfter(downloads: Int) async throws -> Duration {
            let settled = await eventually {
                fetcher.downloads == downloads && !cache.isReloading && time.sleeperCount == 1
            }
            #expect(settled, "after \(downloads) downloads: \(fetcher.downloads), sleepers \(time.sleeperCount)")
            return try #require(time.nextSleeperDelay)
        }
    }

    @Test("a fetcher failing 3 times, then serving: loaded without any lookup, after 1 s, 2 s and 4 s")
    func failsThenLoads() async throws {
        let harness = try Harness { CountingFetcher(failing: 3, thenServing: $0.jwksDocument) }
        harness.cache.startRefreshing()
        harness.cache.startRefreshing()  // idempotent: one refresher
        for (attempt, expected) in [1, 2, 4].enumerated() {
            let delay = try await harness.sleepAfter(downloads: attempt + 1)
            #expect(delay == .seconds(expected), "after failure \(attempt + 1)")
            #expect(!harness.cache.isLoaded)
            harness.time.advance(by: delay)
        }
        #expect(await eventually { harness.cache.isLoaded })
        #expect(harness.fetcher.downloads == 4)
        #expect(harness.cache.keyIDs == [harness.factory.keyID])
        // Loaded: the next reload is the scheduled one, a TTL after the download started.
        let scheduled = try await harness.sleepAfter(downloads: 4)
        #expect(scheduled == JWKSCacheConfiguration().timeToLive)
        harness.time.advance(by: scheduled)
        _ = try await harness.sleepAfter(downloads: 5)
        #expect(harness.cache.isLoaded)
    }

    @Test("the backoff doubles up to its cap and stays there", arguments: [0.0, 0.5, 1.0])
    func backoffIsCapped(jitter: Double) async throws {
        let harness = try Harness(fetcher: { _ in CountingFetcher(behaviour: .fail) }, jitter: jitter)
        let configuration = JWKSCacheConfiguration()
        harness.cache.startRefreshing()
        var delays: [Duration] = []
        for failures in 1...9 {
            let delay = try await harness.sleepAfter(downloads: failures)
            delays.append(delay)
            harness.time.advance(by: delay)
        }
        let factor = 0.5 + jitter / 2
        let expected = [1, 2, 4, 8, 16, 30, 30, 30, 30].map { Duration.nanoseconds(Int64((Double($0) * factor * 1e9).rounded())) }
        #expect(delays == expected)
        #expect(delays.allSatisfy { $0 <= configuration.maximumRetryDelay })
        #expect(!harness.cache.isLoaded)
    }

    @Test("retryDelay: capped, never under half, for any failure count")
    func retryDelayBounds() {
        let configuration = JWKSCacheConfiguration()
        for failures in [1, 2, 5, 6, 7, 31, 64, 1000] {
            for jitter in [-1.0, 0, 0.25, 0.999, 2] {
                let delay = configuration.retryDelay(afterFailures: failures, jitter: jitter)
                #expect(delay <= configuration.maximumRetryDelay, "failures \(failures) jitter \(jitter)")
                #expect(delay >= configuration.initialRetryDelay / 2, "failures \(failures) jitter \(jitter)")
            }
        }
        #expect(configuration.retryDelay(afterFailures: 64, jitter: 0) == configuration.maximumRetryDelay / 2)
    }

    @Test("with keys cached, a failed scheduled reload keeps them and retries no sooner than the minimum interval")
    func failedReloadKeepsKeys() async throws {
        let harness = try Harness { CountingFetcher(document: $0.jwksDocument) }
        harness.cache.startRefreshing()
        let scheduled = try await harness.sleepAfter(downloads: 1)
        harness.fetcher.set(.fail)
        harness.time.advance(by: scheduled)
        let retry = try await harness.sleepAfter(downloads: 2)
        #expect(retry == JWKSCacheConfiguration().minimumRefreshInterval)
        #expect(harness.cache.isLoaded)
        guard case .key = harness.cache.immediateKey(for: harness.factory.keyID) else {
            Issue.record("the cached key must still be served")
            return
        }
    }

    @Test("keys loaded by the refresher: an unknown kid still gets the rate-limited on-demand reload")
    func unknownKidAfterBackgroundLoad() async throws {
        let harness = try Harness { CountingFetcher(document: $0.jwksDocument) }
        harness.cache.startRefreshing()
        _ = try await harness.sleepAfter(downloads: 1)
        // Within the minimum interval of the background load: no download.
        await #expect(throws: AuthError(.unknownKid, "")) { try await harness.cache.key(for: "other") }
        #expect(harness.fetcher.downloads == 1)
        harness.time.advance(by: .seconds(61))
        await #expect(throws: AuthError(.unknownKid, "")) { try await harness.cache.key(for: "other") }
        #expect(harness.fetcher.downloads == 2)
    }
}
