@testable import AppNativeServer
import Testing

/// A transport that answers `receive` from a script (no socket).
private final class ScriptedTransport: ConnectionTransport {
    var reads: [TransportResult]
    let shortReadDrainsSocket: Bool
    private(set) var receiveCalls = 0

    init(_ reads: [TransportResult], shortReadDrainsSocket: Bool = true) {
        self.reads = reads
        self.shortReadDrainsSocket = shortReadDrainsSocket
    }

    func receive(into buffer: UnsafeMutableRawBufferPointer) -> TransportResult {
        receiveCalls += 1
        guard !reads.isEmpty else { return .wouldBlock }
        let result = reads.removeFirst()
        if case .transferred(let count) = result {
            // unsafe: index stays below the buffer's count.
            for index in 0..<min(count, buffer.count) { unsafe buffer[index] = UInt8(truncatingIfNeeded: index) }
        }
        return result
    }

    func send(_ bytes: UnsafeRawBufferPointer) -> TransportResult { .transferred(bytes.count) }
    func shutdown() -> TransportResult { .transferred(0) }
    var selectedHTTP2: Bool { false }
}

/// An owner of the shared read loop that records what it received.
private final class RecordingReader: SocketReading {
    var reader = SocketReader()
    let transport: ScriptedTransport
    var buffer = [UInt8](repeating: 0, count: 8)
    var counts: [Int] = []
    /// Stops wanting input after this many reads.
    var limit = Int.max

    init(_ transport: ScriptedTransport) { self.transport = transport }

    var wantsInput: Bool { counts.count < limit }

    var socketMayHaveInput: Bool { reader.mayHaveInput }

    func receiveIntoBuffer() -> TransportResult {
        // unsafe: the pointer is used inside the closure only, within the buffer's count.
        let result = unsafe buffer.withUnsafeMutableBytes { unsafe transport.receive(into: $0) }
        reader = reader.afterRead(result, bufferSize: buffer.count, shortReadDrainsSocket: transport.shortReadDrainsSocket)
        return result
    }

    func received(count: Int) {
        counts.append(count)
        // The loop holds no access to the reader while the owner handles bytes.
        _ = reader.peerHasClosed
    }
}

@Suite struct SocketReaderTests {
    /// Under edge triggering a short plain-TCP read proves the socket drained: no extra recv.
    @Test func shortPlainReadEndsTheLoop() {
        let owner = RecordingReader(ScriptedTransport([.transferred(8), .transferred(3), .transferred(5)]))
        #expect(owner.readAvailable() == .stopped)
        #expect(owner.counts == [8, 3])
        #expect(owner.transport.receiveCalls == 2)
        #expect(!owner.reader.mayHaveInput)
        // The next readiness edge reads again.
        owner.reader = owner.reader.afterReadiness(.readable)
        #expect(owner.readAvailable() == .stopped)
        #expect(owner.counts == [8, 3, 5])
    }

    /// TLS may hold decrypted bytes: a short read does not prove anything.
    @Test func shortTLSReadReadsOn() {
        let owner = RecordingReader(ScriptedTransport([.transferred(3), .transferred(2)], shortReadDrainsSocket: false))
        #expect(owner.readAvailable() == .wouldBlock)
        #expect(owner.counts == [3, 2])
    }

    @Test func peerCloseIsRemembered() {
        let owner = RecordingReader(ScriptedTransport([.transferred(8), .closed]))
        #expect(owner.readAvailable() == .closed)
        #expect(owner.reader.peerHasClosed)
        #expect(!owner.reader.mayHaveInput)
        // A later edge does not reopen a closed input.
        owner.reader = owner.reader.afterReadiness(.readable)
        #expect(owner.reader.peerHasClosed)
    }

    /// After the peer's FIN is reported, a short read does not end the loop: it reads to the close.
    @Test func peerClosingReadsUntilTheClose() {
        let owner = RecordingReader(ScriptedTransport([.transferred(3), .closed]))
        owner.reader = owner.reader.afterReadiness([.readable, .peerClosed])
        #expect(owner.readAvailable() == .closed)
        #expect(owner.counts == [3])
    }

    @Test func ownerThatStopsWantingInputStopsTheLoop() {
        let owner = RecordingReader(ScriptedTransport([.transferred(8), .transferred(8), .transferred(8)]))
        owner.limit = 2
        #expect(owner.readAvailable() == .stopped)
        #expect(owner.counts == [8, 8])
        #expect(owner.reader.mayHaveInput)
    }

    @Test func failureEndsTheLoop() {
        let owner = RecordingReader(ScriptedTransport([.failed]))
        #expect(owner.readAvailable() == .failed)
    }

    @Test func writablenessAloneIsNotInput() {
        #expect(SocketReader.inputEvents.isDisjoint(with: .writable))
        #expect(!SocketReader.inputEvents.isDisjoint(with: .hangUp))
    }

    @Test func producerWaitsOnceTheOutputReachesTheWatermark() {
        #expect(WriteDemand.none.afterQueuing(pendingCount: 1, highWatermark: 2) == .none)
        #expect(WriteDemand.none.afterQueuing(pendingCount: 2, highWatermark: 2) == .producerWaiting)
        // Queuing less later does not forget the waiting producer.
        #expect(WriteDemand.producerWaiting.afterQueuing(pendingCount: 0, highWatermark: 2) == .producerWaiting)
    }
}
