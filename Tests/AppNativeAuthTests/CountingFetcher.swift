import AppNativeAuth
import AppNativeCore
import Foundation

/// A JWKS fetcher that counts downloads and can fail, hang or wait for a gate.
final class CountingFetcher: JWKSFetching {
    enum Behaviour: Sendable {
        case serve(String)
        case fail
        /// Never answers (until the caller's deadline abandons it).
        case hang
    }

    struct Failure: Error {}

    private struct State {
        var behaviour: Behaviour
        /// Downloads that fail before `behaviour` applies.
        var failuresLeft = 0
        var downloads = 0
        var isGated = false
        var gateWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Locked<State>

    init(document: String) {
        state = Locked(State(behaviour: .serve(document)))
    }

    init(behaviour: Behaviour) {
        state = Locked(State(behaviour: behaviour))
    }

    /// Fails the first `failures` downloads, then serves `document`.
    init(failing failures: Int, thenServing document: String) {
        state = Locked(State(behaviour: .serve(document), failuresLeft: failures))
    }

    var downloads: Int { state.withLock { $0.downloads } }

    func set(_ behaviour: Behaviour) { state.withLock { $0.behaviour = behaviour } }

    /// While closed, downloads start (and are counted) but do not answer.
    func closeGate() { state.withLock { $0.isGated = true } }

    func openGate() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isGated = false
            defer { state.gateWaiters = [] }
            return state.gateWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var waitingAtGate: Int { state.withLock { $0.gateWaiters.count } }

    func fetchDocument() async throws -> [UInt8] {
        let behaviour = state.withLock { state -> Behaviour in
            state.downloads += 1
            if state.failuresLeft > 0 {
                state.failuresLeft -= 1
                return .fail
            }
            return state.behaviour
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let passes = state.withLock { state -> Bool in
                if state.isGated {
                    state.gateWaiters.append(continuation)
                    return false
                }
                return true
            }
            if passes { continuation.resume() }
        }
        switch behaviour {
        case .serve(let document): return Array(document.utf8)
        case .fail: throw Failure()
        case .hang:
            // Ignores cancellation on purpose: the cache's deadline must not depend on it.
            await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
            return []
        }
    }
}
