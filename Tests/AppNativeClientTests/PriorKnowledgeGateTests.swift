@testable import AppNativeClient
import Testing

/// The h2c connection-reuse workaround as a state machine (curl/curl#10634).
@Suite("PriorKnowledgeGate")
struct PriorKnowledgeGateTests {
    @Test("only libcurl below 8.0 needs it")
    func versions() {
        #expect(PriorKnowledgeGate<Int>.isNeeded(libcurlVersion: 0x07_58_01))
        #expect(!PriorKnowledgeGate<Int>.isNeeded(libcurlVersion: 0x08_00_00))
        #expect(!PriorKnowledgeGate<Int>.isNeeded(libcurlVersion: 0x08_0b_01))
    }

    @Test("one opener per origin; the rest wait, then join the open connection")
    func opening() {
        var gate = PriorKnowledgeGate<Int>()
        #expect(gate.admit(1, origin: "a:1") == .open)
        #expect(gate.admit(2, origin: "a:1") == .wait)
        #expect(gate.admit(3, origin: "a:1") == .wait)
        #expect(gate.admit(9, origin: "b:1") == .open)
        let released = gate.openerFinished(origin: "a:1", succeeded: true)
        #expect(released.held == [2, 3])
        #expect(released.isOpen)
        #expect(gate.admit(4, origin: "a:1") == .join)
    }

    @Test("a failed opener hands the waiting transfers back to be admitted anew")
    func failedOpener() {
        var gate = PriorKnowledgeGate<Int>()
        #expect(gate.admit(1, origin: "a:1") == .open)
        #expect(gate.admit(2, origin: "a:1") == .wait)
        #expect(gate.openerFinished(origin: "a:1", succeeded: false).held == [2])
        #expect(gate.admit(2, origin: "a:1") == .open)
    }

    @Test("a lost connection makes the next transfer open a new one")
    func lostConnection() {
        var gate = PriorKnowledgeGate<Int>()
        #expect(gate.admit(1, origin: "a:1") == .open)
        _ = gate.openerFinished(origin: "a:1", succeeded: true)
        gate.connectionLost(origin: "a:1")
        #expect(gate.admit(2, origin: "a:1") == .open)
        // A loss reported while another transfer is already opening changes nothing.
        gate.connectionLost(origin: "a:1")
        #expect(gate.admit(3, origin: "a:1") == .wait)
    }

    @Test("held transfers can be withdrawn (cancellation, shutdown)")
    func withdraw() {
        var gate = PriorKnowledgeGate<Int>()
        _ = gate.admit(1, origin: "a:1")
        _ = gate.admit(2, origin: "a:1")
        _ = gate.admit(3, origin: "a:1")
        #expect(gate.removeHeld { $0 == 2 } == [2])
        #expect(gate.openerFinished(origin: "a:1", succeeded: true).held == [3])
    }
}
