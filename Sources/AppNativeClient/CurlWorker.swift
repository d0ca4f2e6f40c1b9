internal import CAppNativeCurl
import Synchronization

/// The loop of a client's one worker thread: drives every transfer through the multi handle.
///
/// All curl calls except the wake-up happen here, so transfers, their easy handles and their
/// callbacks need no locks. Callers talk to it only through the engine's locked queue; it
/// answers only by resuming continuations, which never runs caller code on this thread.
@safe
final class CurlWorker {
    // @safe: the easy-handle pointers it keys transfers by are owned by those transfers' CurlEasy
    // objects, which it holds until curl has finished with them.
    private struct Active {
        var transfer: CurlTransfer
        var continuation: CurlEngine.Continuation
        var gateRole: GateRole = .none
    }

    /// A transfer's part in the h2c workaround (`PriorKnowledgeGate`).
    private enum GateRole {
        case none
        case opener(origin: String)
        case joined(origin: String)
    }

    private typealias Held = (id: UInt64, submission: CurlEngine.Submission)

    /// Whether this libcurl needs the h2c connection-reuse workaround.
    private static let needsPriorKnowledgeGate = unsafe PriorKnowledgeGate<Held>.isNeeded(
        libcurlVersion: appnative_curl_version_info().pointee.version_num)

    /// The longest sleep without a wake-up or a curl timeout; a safety net, not a schedule.
    private static let pollCeilingMilliseconds: Int32 = 1000

    private let engine: CurlEngine
    private var active: [UInt64: Active] = [:]
    private var idsByHandle: [UnsafeMutableRawPointer: UInt64] = unsafe [:]
    private var gate = PriorKnowledgeGate<Held>()
    /// Easy handles of finished transfers, reset and kept for the next ones: creating a handle
    /// costs an allocation of tens of KB and its initialisation on every request.
    private var idleHandles: [CurlEasy] = []
    /// Enough for a full window of multiplexed pushes; extra handles are freed.
    private static let maximumIdleHandles = 128

    init(engine: CurlEngine) {
        self.engine = engine
    }

    func run() {
        while true {
            let batch = engine.takeCommands()
            for command in batch.commands {
                switch command {
                case .start(let id, let submission):
                    if batch.isShutDown {
                        submission.continuation.resume(
                            returning: .failure(
                                ClientError(.shutDown, reason: "client shut down before the request started"))
                        )
                    } else {
                        start(id, submission)
                    }
                case .cancel(let id):
                    let cancelled = ClientError(.cancelled, reason: "the calling task was cancelled")
                    for held in gate.removeHeld(where: { $0.id == id }) {
                        held.submission.continuation.resume(returning: .failure(cancelled))
                    }
                    finish(id, with: .failure(cancelled))
                }
            }
            if batch.isShutDown {
                for held in gate.removeHeld(where: { _ in true }) {
                    held.submission.continuation.resume(
                        returning: .failure(ClientError(.shutDown, reason: "client shut down before the request started")))
                }
                for id in Array(active.keys) {
                    finish(id, with: .failure(ClientError(.shutDown, reason: "client shut down during the request")))
                }
                return
            }
            let performed = engine.multi.perform()
            if performed != CURLM_OK {
                failAll(reason: unsafe "curl_multi_perform failed: \(String(cString: curl_multi_strerror(performed)))")
            }
            while let completion = engine.multi.nextCompletion() {
                guard let id = unsafe idsByHandle[completion.handle], let entry = active[id] else { continue }
                finish(id, with: entry.transfer.result(for: completion.result))
            }
            let polled = engine.multi.poll(timeoutMilliseconds: Self.pollCeilingMilliseconds)
            if polled != CURLM_OK {
                failAll(reason: unsafe "curl_multi_poll failed: \(String(cString: curl_multi_strerror(polled)))")
            }
        }
    }

    private func start(_ id: UInt64, _ submission: CurlEngine.Submission) {
        var request = submission.request
        var role = GateRole.none
        if request.usesHTTP2PriorKnowledge, Self.needsPriorKnowledgeGate {
            let origin = request.target.origin
            switch gate.admit((id, submission), origin: origin) {
            case .wait:
                return
            case .open:
                role = .opener(origin: origin)
            case .join:
                role = .joined(origin: origin)
                request.joinsPriorKnowledgeConnection = true
            }
        }
        let transfer: CurlTransfer
        do {
            let easy: CurlEasy
            if let idle = idleHandles.popLast() { easy = idle } else { easy = try CurlEasy() }
            transfer = try CurlTransfer(request: request, easy: easy)
        } catch {
            releaseGate(role, lostConnection: true)
            submission.continuation.resume(returning: .failure(error))
            return
        }
        do {
            try engine.multi.add(transfer.easy)
        } catch {
            submission.continuation.resume(returning: .failure(error))
            releaseGate(role, lostConnection: true)
            return
        }
        active[id] = Active(transfer: transfer, continuation: submission.continuation, gateRole: role)
        unsafe idsByHandle[transfer.easy.handle] = id
        engine.activeTransfers.add(1, ordering: .relaxed)
        engine.startedTransfers.add(1, ordering: .relaxed)
    }

    /// Removes the transfer from the multi handle (its connection goes back to the cache, or
    /// is closed if the transfer was cut short), then delivers the outcome. A transfer that is
    /// already gone (a cancellation racing its completion) is ignored.
    private func finish(_ id: UInt64, with result: Result<HTTPResponse, ClientError>) {
        guard let entry = active.removeValue(forKey: id) else { return }
        unsafe idsByHandle[entry.transfer.easy.handle] = nil
        engine.multi.remove(entry.transfer.easy)
        if idleHandles.count < Self.maximumIdleHandles, entry.transfer.easy.reset() {
            idleHandles.append(entry.transfer.easy)
        }
        engine.activeTransfers.subtract(1, ordering: .relaxed)
        entry.continuation.resume(returning: result)
        // Only a connection-level failure means there is no connection to join: after a timeout
        // or a cancellation the stream is reset but the connection stays open.
        var lostConnection = false
        if case .failure(let error) = result {
            lostConnection = error.code == .transport || error.code == .connectFailed || error.code == .tlsFailed
        }
        releaseGate(entry.gateRole, lostConnection: lostConnection)
    }

    /// Reports a gated transfer's end: an opener releases the transfers held behind it (joining
    /// the connection it opened, or admitted anew when it failed); a joined transfer that lost
    /// the connection makes the next one open a new connection.
    private func releaseGate(_ role: GateRole, lostConnection: Bool) {
        switch role {
        case .none:
            break
        case .opener(let origin):
            let (held, _) = gate.openerFinished(origin: origin, succeeded: !lostConnection)
            for transfer in held { start(transfer.id, transfer.submission) }
        case .joined(let origin):
            if lostConnection { gate.connectionLost(origin: origin) }
        }
    }

    private func failAll(reason: String) {
        for id in Array(active.keys) {
            finish(id, with: .failure(ClientError(.transport, reason: reason)))
        }
    }
}
