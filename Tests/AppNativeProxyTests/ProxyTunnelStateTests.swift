@testable import AppNativeProxy
import Testing

@Suite("Proxy tunnel state")
struct ProxyTunnelStateTests {
    /// An unmasked binary frame (server to client) with `count` payload bytes (RFC 6455 §5.2).
    private func frame(_ count: UInt8) -> [UInt8] { [0x82, count] + [UInt8](repeating: 7, count: Int(count)) }

    /// A masked binary frame (client to server) with `count` payload bytes.
    private func maskedFrame(_ count: UInt8) -> [UInt8] { [0x82, 0x80 | count, 1, 2, 3, 4] + [UInt8](repeating: 7, count: Int(count)) }

    @Test func bytesFlowBothWaysWhileOpen() {
        var state = ProxyTunnelState()
        let bytes = frame(3)[...]
        let check1 = state.upstreamSent(bytes) == .forward(bytes)
        #expect(check1)
        let check2 = state.clientSent(maskedFrame(2)[...])
        #expect(check2)
        #expect(state.phase == .open)
    }

    @Test func atAFrameBoundaryTheExpiryClosesBothEndsAtOnce() {
        var state = ProxyTunnelState()
        _ = state.upstreamSent(frame(3)[...])
        _ = state.clientSent(maskedFrame(2)[...])
        let check3 = state.credentialExpired() == .close(ProxyTunnelState.Closing(isUpstreamAtFrameBoundary: true))
        #expect(check3)
        #expect(state.phase == .closed)
        let check4 = state.upstreamSent(frame(1)[...]) == .none
        #expect(check4)
        let check5 = !state.clientSent(maskedFrame(1)[...])
        #expect(check5)
        let check6 = state.credentialExpired() == .none
        #expect(check6)
    }

    @Test func theFrameInFlightReachesTheClientWholeFirst() {
        var state = ProxyTunnelState()
        let first = frame(6)
        let check7 = state.upstreamSent(first[..<4]) == .forward(first[..<4])
        #expect(check7)
        let check8 = state.credentialExpired() == .awaitFrameBoundary
        #expect(check8)
        #expect(state.phase == .ending)
        // The rest of the frame, then a whole next frame the client never sees.
        let rest = first[4...] + frame(2)
        let restSlice = rest[...]
        let check9 = state.upstreamSent(restSlice) == .forwardAndClose(restSlice.prefix(4), ProxyTunnelState.Closing(isUpstreamAtFrameBoundary: true))
        #expect(check9)
        let check10 = !state.endingTimedOut()
        #expect(check10)
    }

    @Test func theUpstreamsCloseFrameWaitsForItsOwnBoundary() {
        var state = ProxyTunnelState()
        _ = state.clientSent(maskedFrame(5)[..<7])
        let check11 = state.credentialExpired() == .close(ProxyTunnelState.Closing(isUpstreamAtFrameBoundary: false))
        #expect(check11)
    }

    @Test func aFrameThatNeverEndsIsCutAtTheTimeout() {
        var state = ProxyTunnelState()
        _ = state.upstreamSent(frame(9)[..<3])
        let check12 = state.credentialExpired() == .awaitFrameBoundary
        #expect(check12)
        let check13 = state.endingTimedOut()
        #expect(check13)
        #expect(state.phase == .closed)
        let check14 = !state.endingTimedOut()
        #expect(check14)
    }

    @Test func eitherSideClosingClosesTheOtherOnce() {
        var byClient = ProxyTunnelState()
        let check15 = byClient.clientClosed()
        #expect(check15)
        let check16 = !byClient.upstreamClosed()
        #expect(check16)
        var byUpstream = ProxyTunnelState()
        let check17 = byUpstream.upstreamClosed()
        #expect(check17)
        let check18 = !byUpstream.clientClosed()
        #expect(check18)
    }
}
