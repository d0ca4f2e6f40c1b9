import AppNativeAuth
import AppNativeCore
import AppNativeCrypto
import AppNativeTesting
import Foundation
import Testing

/// The observable consequences of contract/auth.md §6, with a manual clock.
@Suite("JWKS cache timing rules")
struct JWKSCacheTests {
    @Test("5 sequential verifications cost 1 download")
    func sequential() async throws {
        let fixture = try await EntraFixture()
        for _ in 0..<5 { _ = try await fixture.verifier.verify(try fixture.token(["jti": UUID().uuidString])) }
        #expect(fixture.fetcher.downloads == 1)
    }

    @Test("20 concurrent first requests get 503 at once and cost 1 download, which then serves them")
    func concurrentFirstRequests() async throws {
        let fixture = try await EntraFixture(loadsKeys: false)
        fixture.fetcher.closeGate()
        let tokens = try (0..<20).map { _ in try fixture.token(["jti": UUID().uuidString]) }
        await withTaskGroup(of: AuthError?.self) { group in
            for token in tokens {
                group.addTask {
                    do {
                        _ = try await fixture.verifier.verify(token)
                        return nil
                    } catch {
                        return error as? AuthError
                    }
                }
            }
            // Answered while the first download is still held at the gate: nobody waited for it.
            for await error in group { #expect(error?.code == .keysUnavailable) }
        }
        #expect(await eventually { fixture.fetcher.waitingAtGate == 1 })
        fixture.fetcher.openGate()
        #expect(await eventually { fixture.verifier.keys.isLoaded })
        for token in tokens { _ = try await fixture.verifier.verify(token) }
        #expect(fixture.fetcher.downloads == 1)
    }

    @Test("TTL: no reload at +3599 s; at +3601 s the cache answers and one background reload runs")
    func timeToLive() async throws {
        let fixture = try await EntraFixture()
        _ = try await fixture.verifier.verify(try fixture.token())
        fixture.time.advance(by: .seconds(3599))
        _ = try await fixture.verifier.verify(try fixture.token(["jti": "a"]))
        #expect(fixture.fetcher.downloads == 1)
        fixture.time.advance(by: .seconds(2))
        fixture.fetcher.closeGate()
        // Answered from the cache while the reload is stuck at the gate: nobody waits for it.
        _ = try await fixture.verifier.verify(try fixture.token(["jti": "b"]))
        _ = try await fixture.verifier.verify(try fixture.token(["jti": "c"]))
        #expect(await eventually { fixture.fetcher.waitingAtGate == 1 })
        #expect(fixture.fetcher.downloads == 2)
        fixture.fetcher.openGate()
    }

    @Test("a rotated key within the minimum interval is unknown; after it, a reload accepts it")
    func rotation() async throws {
        let fixture = try await EntraFixture()
        _ = try await fixture.verifier.verify(try fixture.token())
        let rotated = TestTokenFactory(key: try .generate(), keyID: "new-kid")
        let combined = """
            {"keys":[\(Self.keyEntry(fixture.factory)),\(Self.keyEntry(rotated))]}
            """
        fixture.fetcher.set(.serve(combined))
        let newToken = try rotated.token(claims: fixture.claims())
        fixture.time.advance(by: .seconds(30))
        let early = await #expect(throws: AuthError.self) { try await fixture.verifier.verify(newToken) }
        #expect(early?.code == .unknownKid)
        #expect(early?.bearerStatus == 401)
        #expect(fixture.fetcher.downloads == 1)
        fixture.time.advance(by: .seconds(31))
        let identity = try await fixture.verifier.verify(newToken)
        #expect(identity.user.email == "ada@example.com")
        #expect(fixture.fetcher.downloads == 2)
    }

    @Test("a flood of unknown kids costs at most one download per minimum interval")
    func unknownKidFlood() async throws {
        let fixture = try await EntraFixture()
        _ = try await fixture.verifier.verify(try fixture.token())
        for round in 0..<3 {
            for index in 0..<200 {
                let token = try fixture.token(kid: "attacker-\(round)-\(index)")
                await #expect(throws: AuthError(.unknownKid, "")) { try await fixture.verifier.verify(token) }
            }
            // Round 0 falls inside the interval of the first load; each later round triggers exactly one reload.
            #expect(fixture.fetcher.downloads == 1 + round)
            fixture.time.advance(by: .seconds(60))
        }
    }

    @Test("a download failing from the start: 503, again 503 without a download, then recovery on the backoff")
    func failingFromStart() async throws {
        let fixture = try await EntraFixture(fetcher: CountingFetcher(behaviour: .fail), loadsKeys: false)
        let token = try fixture.token()
        // The first lookup starts the refresher nobody started (a library user's verifier).
        let first = await #expect(throws: AuthError.self) { try await fixture.verifier.verify(token) }
        #expect(first?.code == .keysUnavailable)
        #expect(first?.bearerStatus == 503)
        #expect(await eventually { fixture.fetcher.downloads == 1 && fixture.time.nextSleeperDelay != nil })
        let second = await #expect(throws: AuthError.self) { try await fixture.verifier.verify(token) }
        #expect(second?.code == .keysUnavailable)
        #expect(fixture.fetcher.downloads == 1)
        // Requests never download while the cache is empty; the refresher's backoff does.
        let retry = try #require(fixture.time.nextSleeperDelay)
        #expect(retry <= JWKSCacheConfiguration().initialRetryDelay)
        fixture.fetcher.set(.serve(fixture.factory.jwksDocument))
        fixture.time.advance(by: retry)
        #expect(await eventually { fixture.verifier.keys.isLoaded })
        _ = try await fixture.verifier.verify(token)
        #expect(fixture.fetcher.downloads == 2)
    }

    @Test("keys survive failed reloads (outage tolerance)")
    func outage() async throws {
        let fixture = try await EntraFixture()
        _ = try await fixture.verifier.verify(try fixture.token())
        fixture.fetcher.set(.fail)
        for hour in 1...3 {
            fixture.time.advance(by: .seconds(3601))
            _ = try await fixture.verifier.verify(try fixture.token(["jti": "\(hour)"]))
            #expect(await eventually { fixture.fetcher.downloads == 1 + hour && !fixture.verifier.keys.isReloading })
        }
        #expect(fixture.verifier.keys.isLoaded)
    }

    @Test("a hanging download is abandoned at the reload timeout")
    func hangingDownload() async throws {
        var cache = JWKSCacheConfiguration()
        cache.reloadTimeout = .milliseconds(50)
        let fixture = try await EntraFixture(cache: cache, fetcher: CountingFetcher(behaviour: .hang), loadsKeys: false)
        let outcome = Task { await fixture.verifier.keys.refresh() }
        // The deadline sleeps on the manual clock; move it past the timeout.
        #expect(await eventually { fixture.time.sleeperCount >= 1 })
        fixture.time.advance(by: .milliseconds(51))
        #expect(await outcome.value == false)
        #expect(!fixture.verifier.keys.isReloading)
        await #expect(throws: AuthError(.keysUnavailable, "")) { try await fixture.verifier.verify(try fixture.token()) }
    }

    @Test("with no key cached a token fails at once with keys unavailable, while the download hangs", .timeLimit(.minutes(1)))
    func emptyCacheFailsFast() async throws {
        let fixture = try await EntraFixture(fetcher: CountingFetcher(behaviour: .hang), loadsKeys: false)
        fixture.verifier.keys.startRefreshing()
        #expect(fixture.verifier.keys.isReloading)
        let token = try fixture.token()
        guard case .failed(let immediate) = fixture.verifier.verifyImmediately(token) else {
            Issue.record("a token must not wait for the first download")
            return
        }
        #expect(immediate.code == .keysUnavailable)
        // The clock never moves, so the reload timeout never fires: waiting for it would hang here.
        let awaited = await #expect(throws: AuthError.self) { try await fixture.verifier.verify(token) }
        #expect(awaited?.code == .keysUnavailable)
        #expect(awaited?.bearerStatus == 503)
        #expect(fixture.verifier.keys.isReloading)
        #expect(await eventually { fixture.fetcher.downloads == 1 })
    }

    @Test("a waiting caller's cancellation does not cancel the shared reload")
    func cancellationDoesNotCancelReload() async throws {
        let fixture = try await EntraFixture()
        let rotated = TestTokenFactory(key: try .generate(), keyID: "new-kid")
        fixture.fetcher.set(.serve(#"{"keys":[\#(Self.keyEntry(fixture.factory)),\#(Self.keyEntry(rotated))]}"#))
        fixture.time.advance(by: .seconds(61))
        fixture.fetcher.closeGate()
        // An unknown kid with keys cached waits for the on-demand reload.
        let token = try rotated.token(claims: fixture.claims())
        let first = Task { try await fixture.verifier.verify(token) }
        #expect(await eventually { fixture.fetcher.waitingAtGate == 1 })
        let second = Task { try await fixture.verifier.verify(token) }
        first.cancel()
        fixture.fetcher.openGate()
        _ = try await second.value
        #expect(fixture.fetcher.downloads == 2)
        #expect(fixture.verifier.keys.keyIDs.contains("new-kid"))
    }

    @Test("JWKS parsing keeps usable RSA keys and skips everything else")
    func parsing() throws {
        let factory = try TestTokenFactory.trusted()
        let rsa = Self.keyEntry(factory)
        let document = """
            {"keys":[
              "a string",
              {"kty":"EC","kid":"ec","crv":"P-256","x":"AA","y":"AA"},
              {"kty":"oct","kid":"sym","k":"AAAA"},
              {"kty":"RSA","kid":"incomplete","n":"AQAB"},
              {"kty":"RSA","n":"AQAB","e":"AQAB"},
              {"kty":"RSA","kid":"enc","use":"enc","n":"\(Base64URL.encode(factory.key.publicKey.modulus))","e":"AQAB"},
              \(rsa)
            ]}
            """
        let keySet = try JSONWebKeySet.parse(Array(document.utf8))
        #expect(Set(keySet.keys.keys) == [factory.keyID])
        for bad in ["[]", "{}", #"{"keys":{}}"#, #"{"keys":[]}"#, #"{"keys":["x"]}"#, "not json"] {
            #expect(throws: AuthError(.keysUnavailable, ""), "document \(bad)") { try JSONWebKeySet.parse(Array(bad.utf8)) }
        }
        let oversized = [UInt8](repeating: UInt8(ascii: " "), count: 1_000_001)
        #expect(throws: AuthError(.keysUnavailable, "")) { try JSONWebKeySet.parse(oversized) }
    }

    static func keyEntry(_ factory: TestTokenFactory) -> String {
        let document = factory.jwksDocument
        let start = document.index(after: document.firstIndex(of: "[")!)
        let end = document.lastIndex(of: "]")!
        return String(document[start..<end])
    }
}
