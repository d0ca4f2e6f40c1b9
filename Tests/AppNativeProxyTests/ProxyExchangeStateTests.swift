import AppNativeHTTP
@testable import AppNativeProxy
import AppNativeServer
import Glibc
import Testing

@Suite("Proxy exchange state")
struct ProxyExchangeStateTests {
    typealias Machine = ProxyExchangeState<FakeConnection>

    private func machine(
        method: String = "GET",
        body: HTTPBodyFraming? = nil,
        filter: (any RequestBodyFilter)? = nil,
        mediator: (any ResponseMediator)? = nil,
        asksForUpgrade: Bool = false,
        urls: Int = 1
    ) -> Machine {
        Machine(
            method: method,
            bodyFraming: body ?? HTTPBodyFraming.none,
            hasRequestBody: body != nil,
            filter: filter,
            responseMediator: mediator,
            asksForUpgrade: asksForUpgrade,
            urlCount: urls
        )
    }

    /// A machine whose request went out on `connection` and whose connect completed.
    private func sent(_ machine: inout Machine, on connection: FakeConnection) {
        guard case .dial(let dial) = machine.start() else {
            Issue.record("a request without a filtered body dials at once")
            return
        }
        #expect(dial == Machine.Dial(urlIndex: 0, fresh: false, excluding: []))
        _ = machine.sendStarted(on: connection, isConnected: false)
        _ = machine.connected(connection)
    }

    private let head = HTTPResponseHead(status: 200, headers: ["Content-Length": "5"])
    private let buffer: ArraySlice<UInt8> = [UInt8]("hello")[...]

    // MARK: Framing and reuse

    @Test func aNewConnectionRunsTheConnectDeadlineThenTheResponseDeadline() {
        var machine = machine()
        let connection = FakeConnection()
        _ = machine.start()
        guard case .sendHead(let target, .armConnect, readsBody: false) = machine.sendStarted(on: connection, isConnected: false) else {
            Issue.record("the head goes out with the connect deadline armed")
            return
        }
        #expect(target === connection)
        let check1 = machine.connected(connection) == .armResponse
        #expect(check1)
    }

    @Test func aPooledConnectionRunsTheResponseDeadlineAtOnce() {
        var machine = machine()
        _ = machine.start()
        guard case .sendHead(_, .armResponse, readsBody: false) = machine.sendStarted(on: FakeConnection(), isConnected: true) else {
            Issue.record("a complete request on an established connection awaits its answer")
            return
        }
    }

    @Test func aRelayedResponseEndsWithTheConnectionReused() {
        var machine = machine()
        let connection = FakeConnection()
        sent(&machine, on: connection)
        guard case .relayHead(let relayed) = machine.responseEvent(.head(head, .contentLength(5)), in: [], on: connection) else {
            Issue.record("the final head is relayed")
            return
        }
        #expect(relayed.status == 200)
        guard case .relayBody(let bytes) = machine.responseEvent(.body(1..<3), in: buffer, on: connection) else {
            Issue.record("body bytes are relayed")
            return
        }
        #expect(Array(bytes) == [UInt8]("el"))
        guard case .finish(nil, .reuse(let released)?) = machine.responseEvent(.end(trailers: nil), in: [], on: connection) else {
            Issue.record("the end releases the connection for reuse")
            return
        }
        #expect(released === connection)
        #expect(machine.isFinished)
    }

    @Test func theConnectionWaitsForTheRequestBodyToEnd() {
        // The upstream answered before the upload ended: the connection is reused only once
        // the request is complete too.
        var machine = machine(method: "POST", body: .contentLength(4))
        let connection = FakeConnection()
        _ = machine.start()
        guard case .sendHead(_, .unchanged, readsBody: true) = machine.sendStarted(on: connection, isConnected: true) else {
            Issue.record("the body is asked for once the head is queued; no response deadline while it uploads")
            return
        }
        _ = machine.responseEvent(.head(head, .contentLength(5)), in: [], on: connection)
        guard case .finish(_, nil) = machine.responseEvent(.end(trailers: nil), in: [], on: connection) else {
            Issue.record("no release while the request body is still coming")
            return
        }
        guard case .forward(_, _, .asIs) = machine.bodyReceived([1, 2][...]) else {
            Issue.record("a Content-Length body goes as it is")
            return
        }
        guard case .end(let target, .asIs, .unchanged, .reuse(let released)?) = machine.bodyEnded() else {
            Issue.record("the end of the body releases the connection")
            return
        }
        #expect(target === connection && released === connection)
    }

    @Test func aChunkedUploadEndsWithTheResponseDeadline() {
        var machine = machine(method: "POST", body: .chunked)
        let connection = FakeConnection()
        _ = machine.start()
        _ = machine.sendStarted(on: connection, isConnected: true)
        guard case .forward(_, _, .chunked) = machine.bodyReceived([1][...]) else {
            Issue.record("a chunked body goes chunked")
            return
        }
        guard case .end(_, .chunked, .armResponse, nil) = machine.bodyEnded() else {
            Issue.record("the response deadline runs from the end of the request")
            return
        }
    }

    @Test func interimAnswersPrecedeTheFinalOne() {
        var machine = machine()
        let connection = FakeConnection()
        sent(&machine, on: connection)
        guard case .none = machine.responseEvent(.head(HTTPResponseHead(status: 100), .none), in: [], on: connection) else {
            Issue.record("100 Continue is the gateway's own to send")
            return
        }
        _ = machine.responseEvent(.end(trailers: nil), in: [], on: connection)
        guard case .relayInterim(let hints) = machine.responseEvent(.head(HTTPResponseHead(status: 103), .none), in: [], on: connection) else {
            Issue.record("103 Early Hints reaches the client")
            return
        }
        #expect(hints.status == 103)
        _ = machine.responseEvent(.end(trailers: nil), in: [], on: connection)
        guard case .relayHead = machine.responseEvent(.head(head, .contentLength(5)), in: [], on: connection) else {
            Issue.record("the final head follows")
            return
        }
    }

    @Test func eventsOutOfOrderAreAnInvalidResponse() {
        var machine = machine()
        let connection = FakeConnection()
        sent(&machine, on: connection)
        _ = machine.responseEvent(.head(head, .contentLength(5)), in: [], on: connection)
        guard case .fail(.invalidResponse, .close(let closed)?) = machine.responseEvent(.head(head, .contentLength(5)), in: [], on: connection) else {
            Issue.record("a second head is refused and the connection closed")
            return
        }
        #expect(closed === connection)
        guard case .none = machine.responseEvent(.end(trailers: nil), in: [], on: connection) else {
            Issue.record("nothing after the error answer")
            return
        }
    }

    // MARK: Retries and alternates

    @Test func anIdempotentRequestIsRetriedOnceOnAFreshConnection() {
        var machine = machine()
        let first = FakeConnection(FakeConnection.a)
        sent(&machine, on: first)
        guard case .retry(let dial) = machine.upstreamFailed(.closedBeforeResponse, on: first, addressCount: 2) else {
            Issue.record("a GET whose connection closed before answering is sent again")
            return
        }
        // Another address, since there is one not tried yet.
        #expect(dial == Machine.Dial(urlIndex: 0, fresh: true, excluding: [FakeConnection.a]))
        let second = FakeConnection(FakeConnection.b)
        _ = machine.sendStarted(on: second, isConnected: false)
        guard case .fail(.connectFailed, nil) = machine.upstreamFailed(.closedBeforeResponse, on: second, addressCount: 2) else {
            Issue.record("only once")
            return
        }
    }

    @Test(arguments: [("POST", HTTPBodyFraming?.none), ("GET", HTTPBodyFraming.contentLength(3))])
    func aRequestThatIsNotSafeToRepeatIsNotRetried(method: String, body: HTTPBodyFraming?) {
        var machine = machine(method: method, body: body)
        let connection = FakeConnection()
        sent(&machine, on: connection)
        guard case .fail(.connectFailed, nil) = machine.upstreamFailed(.closedBeforeResponse, on: connection, addressCount: 1) else {
            Issue.record("\(method) with a body or not idempotent is answered 502, not repeated")
            return
        }
    }

    @Test func aCloseMidResponseIsNeverRetried() {
        var machine = machine()
        let connection = FakeConnection()
        sent(&machine, on: connection)
        _ = machine.responseEvent(.head(head, .contentLength(5)), in: [], on: connection)
        guard case .fail(.closedMidResponse, nil) = machine.upstreamFailed(.closedMidResponse, on: connection, addressCount: 1) else {
            Issue.record("a cut answer is a 502 (or a cut client connection)")
            return
        }
    }

    @Test func aRefusedConnectMovesTheRequestToTheNextAddress() {
        var machine = machine()
        let connection = FakeConnection(FakeConnection.a)
        _ = machine.start()
        _ = machine.sendStarted(on: connection, isConnected: false)
        guard case .resend(let from, 0, FakeConnection.a, "refused", let dial) = machine.upstreamFailed(.connectFailed(ECONNREFUSED), on: connection, addressCount: 2) else {
            Issue.record("the unsent request moves to the next address")
            return
        }
        #expect(from === connection)
        #expect(dial == Machine.Dial(urlIndex: 0, fresh: true, excluding: [FakeConnection.a]))
        let next = FakeConnection(FakeConnection.b)
        machine.resendStarted(on: next)
        guard case .fail(.connectFailed, nil) = machine.upstreamFailed(.connectFailed(ECONNREFUSED), on: next, addressCount: 2) else {
            Issue.record("every address failed and there is no other URL")
            return
        }
    }

    @Test func onceEveryAddressFailedTheNextURLIsTried() {
        var machine = machine(urls: 2)
        let connection = FakeConnection(FakeConnection.a)
        _ = machine.start()
        _ = machine.sendStarted(on: connection, isConnected: false)
        guard case .resend(_, 0, FakeConnection.a, "timeout", let dial) = machine.upstreamFailed(.connectFailed(ETIMEDOUT), on: connection, addressCount: 1) else {
            Issue.record("the address is ejected from the first URL's")
            return
        }
        #expect(dial == Machine.Dial(urlIndex: 1, fresh: true, excluding: []))
        #expect(machine.urlIndex == 1)
    }

    @Test func aDialThatFailsAtOnceMovesToTheNextURL() {
        var machine = machine(urls: 2)
        _ = machine.start()
        guard case .dial(let dial) = machine.dialFailed(.unresolved) else {
            Issue.record("the alternate URL is dialled")
            return
        }
        #expect(dial == Machine.Dial(urlIndex: 1, fresh: true, excluding: []))
        guard case .fail(.cannotConnect(.unresolved)) = machine.dialFailed(.unresolved) else {
            Issue.record("no URL left: 502")
            return
        }
        guard case .none = machine.dialFailed(.unresolved) else {
            Issue.record("answered once")
            return
        }
    }

    // MARK: Deadlines

    @Test func aConnectDeadlineTriesTheNextAddressOrAnswers502() {
        var machine = machine()
        let connection = FakeConnection(FakeConnection.a)
        _ = machine.start()
        _ = machine.sendStarted(on: connection, isConnected: false)
        guard case .fail(.connectTimedOut, .close(let closed)?) = machine.deadlinePassed(on: connection, addressCount: 1) else {
            Issue.record("the only address timed out")
            return
        }
        #expect(closed === connection)

        var two = self.machine()
        _ = two.start()
        _ = two.sendStarted(on: connection, isConnected: false)
        guard case .resend(_, 0, FakeConnection.a, "timeout", _) = two.deadlinePassed(on: connection, addressCount: 2) else {
            Issue.record("another address is left")
            return
        }
    }

    @Test func aResponseDeadlineAnswers504() {
        var machine = machine()
        let connection = FakeConnection()
        sent(&machine, on: connection)
        guard case .none = machine.deadlinePassed(on: FakeConnection(), addressCount: 1) else {
            Issue.record("another connection's deadline is not this exchange's")
            return
        }
        guard case .fail(.responseTimedOut, .close(let closed)?) = machine.deadlinePassed(on: connection, addressCount: 1) else {
            Issue.record("504 and the connection closed")
            return
        }
        #expect(closed === connection)
    }

    // MARK: Ending early

    @Test func theClientLeavingMidBodyClosesTheConnection() {
        var machine = machine()
        let connection = FakeConnection()
        sent(&machine, on: connection)
        _ = machine.responseEvent(.head(head, .contentLength(5)), in: [], on: connection)
        _ = machine.responseEvent(.body(0..<2), in: buffer, on: connection)
        let check2 = machine.clientAborted() === connection
        #expect(check2)
        #expect(machine.isFinished)
        guard case .none = machine.responseEvent(.body(2..<5), in: buffer, on: connection) else {
            Issue.record("nothing is relayed to a client that left")
            return
        }
        #expect(machine.clientWritable() == nil)
    }

    @Test func anExpiredCredentialEndsAStreamCleanlyAndCutsAnythingElse() {
        var streaming = machine()
        let connection = FakeConnection()
        sent(&streaming, on: connection)
        _ = streaming.responseEvent(.head(head, .chunked), in: [], on: connection)
        guard case .finishBody(.close(let closed)?) = streaming.credentialExpired() else {
            Issue.record("an event stream ends with the end of its body")
            return
        }
        #expect(closed === connection)
        guard case .none = streaming.credentialExpired() else {
            Issue.record("over")
            return
        }

        var waiting = machine()
        sent(&waiting, on: connection)
        guard case .abort(.close?) = waiting.credentialExpired() else {
            Issue.record("an exchange without an answer yet is cut")
            return
        }
    }

    // MARK: Upgrades and mediation

    private let acceptance = HTTPResponseHead(status: 101, headers: ["Connection": "Upgrade", "Upgrade": "websocket"])

    @Test func aSwitchNobodyAskedForIsRefused() {
        var machine = machine()
        let connection = FakeConnection()
        sent(&machine, on: connection)
        guard case .fail(.unaskedSwitch, .close?) = machine.responseEvent(.head(acceptance, .none), in: [], on: connection) else {
            Issue.record("a 101 to a request without an upgrade is a 502")
            return
        }
    }

    @Test func anAcceptedUpgradeHandsTheConnectionToTheTunnel() {
        var machine = machine(asksForUpgrade: true)
        let connection = FakeConnection()
        sent(&machine, on: connection)
        guard case .startTunnel(_, let tunnelled) = machine.responseEvent(.head(acceptance, .none), in: [], on: connection) else {
            Issue.record("the 101 starts the tunnel")
            return
        }
        #expect(tunnelled === connection)
        #expect(machine.isTunnelled)
        guard case .endTunnel = machine.credentialExpired() else {
            Issue.record("the tunnel ends itself")
            return
        }
        guard case .none = machine.upstreamFailed(.closedMidResponse, on: connection, addressCount: 1) else {
            Issue.record("the tunnel's connection is not the exchange's any more")
            return
        }
    }

    @Test func aMediatedAnswerIsCollectedWithinItsLimit() {
        let mediator = Mediator(limit: 4)
        var machine = machine(mediator: mediator)
        let connection = FakeConnection()
        sent(&machine, on: connection)
        guard case .collect = machine.responseEvent(.head(head, .contentLength(5)), in: [], on: connection) else {
            Issue.record("a mediated head is held")
            return
        }
        _ = machine.responseEvent(.body(0..<3), in: buffer, on: connection)
        guard case .fail(.responseTooLarge, .close?) = machine.responseEvent(.body(3..<5), in: buffer, on: connection) else {
            Issue.record("more than the mediator holds is a 502")
            return
        }

        var small = self.machine(mediator: mediator)
        sent(&small, on: connection)
        _ = small.responseEvent(.head(head, .contentLength(3)), in: [], on: connection)
        _ = small.responseEvent(.body(0..<3), in: buffer, on: connection)
        guard case .answerCollected(let collected, _, .reuse?) = small.responseEvent(.end(trailers: nil), in: [], on: connection) else {
            Issue.record("the whole answer goes to the mediator")
            return
        }
        #expect(collected.body == [UInt8]("hel"))
    }

    @Test func aFilteredBodyOpensTheUpstreamWithItsFirstReleasedBytes() {
        var machine = machine(method: "POST", body: .contentLength(10), filter: Filter())
        guard case .readBody = machine.start() else {
            Issue.record("the filter reads first")
            return
        }
        guard case .filter = machine.bodyReceived([1][...]) else {
            Issue.record("bytes go through the filter")
            return
        }
        guard case .none = machine.filterReleased([]) else {
            Issue.record("nothing released: no upstream yet")
            return
        }
        guard case .openUpstream(nil, _) = machine.filterReleased([1]) else {
            Issue.record("the first released bytes open a chunked upstream request")
            return
        }
        let connection = FakeConnection()
        _ = machine.sendStarted(on: connection, isConnected: true)
        guard case .write(_, _, .chunked) = machine.filterReleased([1]) else {
            Issue.record("later bytes follow as chunks")
            return
        }
        guard case .end(_, [2], .armResponse, nil) = machine.filterFinished([2]) else {
            Issue.record("the rest ends the chunked body")
            return
        }
    }

    @Test func aBodyReleasedWholeGoesWithItsLength() {
        var machine = machine(method: "POST", body: .chunked, filter: Filter())
        _ = machine.start()
        guard case .openUpstream(3, _) = machine.filterFinished([1, 2, 3]) else {
            Issue.record("a body known whole goes with Content-Length")
            return
        }
        #expect(machine.isRequestComplete)
    }

    @Test func aRefusedBodyClosesTheUpstream() {
        var machine = machine(method: "POST", body: .chunked, filter: Filter())
        _ = machine.start()
        _ = machine.filterReleased([1])
        let connection = FakeConnection()
        _ = machine.sendStarted(on: connection, isConnected: true)
        let check3 = machine.filterRefused() === connection
        #expect(check3)
        #expect(machine.isFinished)
        guard case .none = machine.bodyReceived([1][...]) else {
            Issue.record("nothing more goes through the filter")
            return
        }
    }
}

private final class Mediator: ResponseMediator {
    let maxUpstreamBodyBytes: Int
    init(limit: Int) { maxUpstreamBodyBytes = limit }
    func answer(status: Int, headers: HTTPHeaders, body: [UInt8]) -> CompleteResponse { CompleteResponse(status: status, body: body) }
}

private final class Filter: RequestBodyFilter {
    var upstreamContentType: String? { nil }
    func consume(_ chunk: ArraySlice<UInt8>) throws(CompleteResponse) -> [UInt8] { Array(chunk) }
    func finish() throws(CompleteResponse) -> [UInt8] { [] }
}
