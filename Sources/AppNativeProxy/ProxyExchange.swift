import AppNativeCore
import AppNativeHTTP
import AppNativeServer
import Glibc

/// Relays one client exchange to the upstream and the response back, streaming both ways with
/// backpressure. Loop-owned.
final class ProxyExchange: UpstreamConnectionDelegate, HTTPExchangeDelegate, TunnelDelegate {
    private let exchange: HTTPExchange
    /// The upstream this exchange is sent to: the route's URL in turn, or the next of
    /// `alternates` once every address of the first failed before a byte of the request left.
    private(set) var pool: UpstreamPool
    /// The route's other URLs whose requests are written alike (same path prefix and `Host`), so
    /// the head already written stands on any of them.
    private var alternates: ArraySlice<UpstreamPool>
    private unowned let handler: ProxyHandler
    private var upstreamHead: HTTPRequestHead
    private var sendsChunked: Bool
    private let mediation: ExchangeMediation?
    /// Whether the request was forwarded as a WebSocket upgrade (the only way to a tunnel).
    private let asksForUpgrade: Bool
    /// Where the request is on its way to the upstream.
    private var request: RequestState
    /// Where the upstream's answer is; every response event moves it in `upstream(_:received:in:)`.
    private var response = ResponseState.awaitingHead
    /// A mediated response is collected here until it ends (bounded by the mediator).
    private var collected: (status: Int, headers: HTTPHeaders, body: [UInt8])?
    private var upstream: UpstreamConnection?
    /// What the deadline armed on the upstream connection's timer guards.
    private var deadlinePhase = Phase.connect
    private var attempts = 0
    /// Addresses this exchange's connects failed on (refused or timed out), not dialled again.
    private var failedAddresses: [SocketAddress] = []
    private var tunnel: Tunnel?
    /// The upstream end of the tunnel, for the client side's events (held weakly: it may close
    /// first).
    private weak var tunnelUpstream: UpstreamConnection?
    /// Frame boundaries of each tunnel direction, so a close frame of ours never splits a frame.
    private var framesToClient = WebSocketFrameTracker()
    private var framesToUpstream = WebSocketFrameTracker()
    /// The deadline of the credential a long-lived answer was admitted with (an event stream, a
    /// WebSocket tunnel), and what to call when it passes; cancelled when the exchange and its
    /// tunnel are over.
    private var credentialExpiry: (timer: LoopTimer, onExpiry: () -> Void)?
    let requestID: String
    /// The gateway's span of this exchange, whose id the upstream received as its parent.
    var trace: TraceContext?
    private(set) var upstreamStartedAt: UInt64 = 0
    private(set) var upstreamDuration: UInt64 = 0

    init(
        exchange: HTTPExchange,
        pool: UpstreamPool,
        handler: ProxyHandler,
        upstreamHead: HTTPRequestHead,
        requestID: String,
        asksForUpgrade: Bool,
        mediation: ExchangeMediation? = nil,
        alternates: [UpstreamPool] = []
    ) {
        self.alternates = alternates[...]
        self.exchange = exchange
        self.mediation = mediation
        self.asksForUpgrade = asksForUpgrade
        self.pool = pool
        self.handler = handler
        self.upstreamHead = upstreamHead
        self.requestID = requestID
        if case .chunked = exchange.framing { sendsChunked = true } else { sendsChunked = false }
        request = exchange.hasRequestBody ? .headOnly : .complete
    }

    func start() {
        exchange.delegate = self
        upstreamStartedAt = exchange.loop.nowNanoseconds
        if let filter = mediation?.requestBody, exchange.hasRequestBody {
            // The upstream connection opens with the first bytes the filter releases.
            request = .filtering(filter)
            exchange.readBody()
        } else {
            connectAndSend()
        }
    }

    // MARK: Client events

    func exchange(_ exchange: HTTPExchange, didReceiveBody chunk: ArraySlice<UInt8>) {
        switch request {
        case .relaying: forwardBody(chunk)
        case .filtering(let filter): filterBody(chunk, filter)
        case .headOnly, .complete: break
        }
    }

    func exchange(_ exchange: HTTPExchange, didEndBodyWith trailers: HTTPHeaders?) {
        switch request {
        case .relaying: bodyEnded(trailers)
        case .filtering(let filter): filteredBodyEnded(filter)
        case .headOnly, .complete: break
        }
    }

    func exchangeDidBecomeWritable(_ exchange: HTTPExchange) {
        upstream?.resumeReading()
    }

    func exchangeDidAbort(_ exchange: HTTPExchange) {
        clientGone()
    }

    /// Sends the request on a pooled connection, or a new one (always new when `fresh`: a retry
    /// after a connection closed before answering).
    private func connectAndSend(fresh: Bool = false) {
        attempts += 1
        let connection: UpstreamConnection
        if !fresh, let idle = pool.takeIdle() {
            connection = idle
            connection.begin(method: upstreamHead.method, delegate: self)
            upstream = connection
            sendHead()
        } else {
            do {
                connection = try connectHere()
            } catch {
                connectFailed(error)
                return
            }
            connection.begin(method: upstreamHead.method, delegate: self)
            upstream = connection
            arm(pool.connectTimeoutNanoseconds, phase: .connect)
            // The head is queued now and flushed once the connection is established.
            sendHead()
        }
    }

    /// A new connection to the next address of `pool`, moving on to the next alternate URL
    /// while every address of this one fails at once.
    private func connectHere() throws(UpstreamPool.ConnectError) -> UpstreamConnection {
        while true {
            do {
                return try pool.connect(excluding: failedAddresses)
            } catch {
                guard moveToAlternate() else { throw error }
            }
        }
    }

    /// Moves to the route's next URL; returns whether there was one.
    private func moveToAlternate() -> Bool {
        guard let next = alternates.popFirst() else { return false }
        pool = next
        failedAddresses = []
        return true
    }

    /// No connection could be started: answered 502, the log line naming the host when it does
    /// not resolve (the request's own fields stay out of it).
    private func connectFailed(_ error: UpstreamPool.ConnectError) {
        handler.count(.connectFailed)
        switch error {
        case .unresolved:
            respondError(502, "Upstream unavailable", logDetail: "upstream host \(pool.addresses.target.host) does not resolve (no address to connect to)")
        case .system(let failure):
            respondError(502, "Upstream unavailable", logDetail: "upstream connect failed: \(failure)")
        }
    }

    /// A connect to `connection`'s address was refused or timed out before any byte of the
    /// request left: the address is ejected, and the request (its queued bytes moved over) goes
    /// to the next address unless every listed one failed already. Returns whether it did.
    private func retryOnNextAddress(after connection: UpstreamConnection, reason: String) -> Bool {
        pool.addresses.eject(connection.address, reason: reason, at: exchange.loop.nowNanoseconds)
        failedAddresses.append(connection.address)
        if failedAddresses.count >= pool.addresses.addressCount, !moveToAlternate() { return false }
        guard let unsent = connection.takeUnsentRequest() else { return false }
        let next: UpstreamConnection
        do {
            next = try connectHere()
        } catch {
            connectFailed(error)
            return true
        }
        handler.count(.retried)
        next.begin(method: upstreamHead.method, delegate: self)
        upstream = next
        next.adoptUnsentRequest(unsent)
        arm(pool.connectTimeoutNanoseconds, phase: .connect)
        return true
    }

    private func sendHead() {
        guard let upstream else { return }
        upstream.writeHead(upstreamHead)
        // The response timeout runs from the end of the request: a long upload is bounded by
        // the client's body-idle timeout instead, not cut at UPSTREAM_RESPONSE_TIMEOUT.
        if upstream.isConnected && request.isComplete { arm(pool.responseTimeoutNanoseconds, phase: .response) }
        if case .headOnly = request {
            request = .relaying
            exchange.readBody()
        }
    }

    private func forwardBody(_ chunk: ArraySlice<UInt8>) {
        guard let upstream else { return }
        if sendsChunked { upstream.writeChunk(chunk) } else { upstream.write(chunk) }
        if !upstream.isBelowWatermark { exchange.pauseBody() }
    }

    private func bodyEnded(_ trailers: HTTPHeaders?) {
        request = .complete
        if sendsChunked { upstream?.writeLastChunk(trailers: TrailerFields.forwardable(trailers, removing: handler.removedFields)) }
        if upstream?.isConnected == true, !response.isAnswered { arm(pool.responseTimeoutNanoseconds, phase: .response) }
        maybeRelease()
    }

    // MARK: Filtered body (native routes)

    private func filterBody(_ chunk: ArraySlice<UInt8>, _ filter: any RequestBodyFilter) {
        guard !response.isFinished else { return }
        let released: [UInt8]
        do { released = try filter.consume(chunk) } catch { return refuse(error) }
        guard !released.isEmpty else { return }
        if upstream == nil { beginFilteredUpstream(filter, contentLength: nil) }
        guard let upstream else { return }
        upstream.writeChunk(released[...])
        if !upstream.isBelowWatermark { exchange.pauseBody() }
    }

    private func filteredBodyEnded(_ filter: any RequestBodyFilter) {
        guard !response.isFinished else { return }
        let released: [UInt8]
        do { released = try filter.finish() } catch { return refuse(error) }
        request = .complete
        if upstream == nil {
            beginFilteredUpstream(filter, contentLength: released.count)
            upstream?.write(released)
        } else {
            if !released.isEmpty { upstream?.writeChunk(released[...]) }
            upstream?.writeLastChunk(trailers: nil)
            if upstream?.isConnected == true { arm(pool.responseTimeoutNanoseconds, phase: .response) }
        }
        maybeRelease()
    }

    /// Sends the head once the filter releases its first bytes: with `Content-Length` when the
    /// whole body is known, chunked otherwise.
    private func beginFilteredUpstream(_ filter: any RequestBodyFilter, contentLength: Int?) {
        upstreamHead.headers.remove("Content-Length")
        upstreamHead.headers.remove("Transfer-Encoding")
        if let contentLength {
            upstreamHead.headers.add(name: "Content-Length", value: String(contentLength))
        } else {
            upstreamHead.headers.add(name: "Transfer-Encoding", value: "chunked")
        }
        if let contentType = filter.upstreamContentType { upstreamHead.headers.replaceOrAdd(name: "Content-Type", value: contentType) }
        sendsChunked = contentLength == nil
        connectAndSend()
    }

    /// The filter refused the body: the upstream (if it saw anything) loses its connection, so
    /// a half-sent body is never taken for a complete one.
    private func refuse(_ answer: CompleteResponse) {
        disarm()
        response = .finished
        let connection = upstream
        upstream = nil
        connection?.release(reusable: false)
        // Whatever is left of the body is drained (or the connection closed) by the server.
        exchange.resumeBody()
        exchange.respond(status: answer.status, headers: answer.headers, body: answer.body)
    }

    // MARK: Upstream events

    func upstreamConnected(_ connection: UpstreamConnection) {
        if request.isComplete {
            arm(pool.responseTimeoutNanoseconds, phase: .response)
        } else {
            disarm()  // the connect timeout is over; the body's pace is the client's
        }
    }

    func upstreamWritable(_ connection: UpstreamConnection) {
        exchange.resumeBody()
        tunnel?.resume()
    }

    /// The upstream's answer, one parser event at a time; the transitions of `response` live here.
    func upstream(_ connection: UpstreamConnection, received event: HTTPParserEvent<HTTPResponseHead>, in buffer: ArraySlice<UInt8>) {
        switch (response, event) {
        case (.awaitingHead, .head(let head, _)) where head.status < 200 && head.status != 101:
            // RFC 9110 §15.2: interim answers precede the final one; the response timeout keeps
            // running until that arrives.
            response = .interim
            relayInterim(head)
        case (.interim, .end):
            response = .awaitingHead
        case (.awaitingHead, .head(let head, _)):
            finalHead(head, connection)
        case (.collecting, .body(let range)):
            guard let mediator = mediation?.response else { return }
            collected?.body.append(contentsOf: buffer[(buffer.startIndex + range.lowerBound)..<(buffer.startIndex + range.upperBound)])
            if (collected?.body.count ?? 0) > mediator.maxUpstreamBodyBytes {
                connection.release(reusable: false)
                upstream = nil
                handler.count(.invalidResponse)
                respondError(502, "Upstream response too large")
            }
        case (.streaming, .body(let range)):
            exchange.sendBody(buffer[(buffer.startIndex + range.lowerBound)..<(buffer.startIndex + range.upperBound)])
            if !exchange.isWritable { connection.pauseReading() }
        case (.collecting, .end):
            response = .done
            if let mediator = mediation?.response, let collected {
                self.collected = nil
                let answer = mediator.answer(status: collected.status, headers: collected.headers, body: collected.body)
                exchange.respond(status: answer.status, headers: answer.headers, body: answer.body)
            }
            maybeRelease()
        case (.streaming, .end(let trailers)):
            response = .done
            exchange.finish(trailers: trailers)
            maybeRelease()
        case (.tunnel, .end), (.endingTunnel, .end), (.done, _), (.finished, _):
            // The 101's own end once bytes are tunnelled, or events after an error answer.
            break
        case (.awaitingHead, _), (.interim, _), (.collecting, .head), (.streaming, .head), (.tunnel, _), (.endingTunnel, _):
            // The parser delivers head, body, end in order; nothing else can arrive here.
            connection.release(reusable: false)
            upstream = nil
            handler.count(.invalidResponse)
            respondError(502, "Upstream sent an invalid response")
        }
    }

    /// A 1xx other than 101: `100 Continue` is ours to send (we read the body for the upstream);
    /// others, such as `103 Early Hints`, reach HTTP/1.1 clients of unmediated routes.
    private func relayInterim(_ head: HTTPResponseHead) {
        guard head.status != 100, mediation?.response == nil else { return }
        var head = head
        _ = HopByHopHeaders.remove(from: &head.headers)
        head.version = .http1_1
        exchange.sendInformational(head)
    }

    private func finalHead(_ head: HTTPResponseHead, _ connection: UpstreamConnection) {
        var head = head
        let isUpgrade = head.status == 101
        if isUpgrade && !(asksForUpgrade && WebSocketHandshake.isAcceptance(head)) {
            // A switch nobody asked for would tunnel the client's next bytes to the upstream
            // unauthenticated and unfiltered (RFC 9110 §15.2.2: a 101 answers an Upgrade).
            connection.release(reusable: false)
            upstream = nil
            handler.count(.invalidResponse)
            respondError(502, "Upstream switched protocols without an upgrade request")
            return
        }
        disarm()
        upstreamDuration = exchange.loop.nowNanoseconds - upstreamStartedAt
        if mediation?.response != nil {
            response = .collecting
            collected = (head.status, head.headers, [])
            return
        }
        _ = HopByHopHeaders.remove(from: &head.headers, keepingWebSocketUpgrade: isUpgrade)
        if isUpgrade {
            head.headers.replaceOrAdd(name: "Connection", value: "Upgrade")
        }
        head.version = .http1_1
        exchange.sendHead(head)
        if isUpgrade {
            response = .tunnel
            startTunnel(connection)
        } else {
            response = .streaming
        }
    }

    func upstreamTunnelData(_ connection: UpstreamConnection, _ bytes: ArraySlice<UInt8>) {
        guard let tunnel else { return }
        if case .endingTunnel = response {
            // The frame in flight still reaches the client whole; what follows it does not.
            let count = framesToClient.follow(bytes, stoppingAtBoundary: true)
            if count > 0 { tunnel.send(bytes.prefix(count)) }
            if framesToClient.isAtFrameBoundary { closeTunnel(connection) }
            return
        }
        _ = framesToClient.follow(bytes)
        tunnel.send(bytes)
        if !tunnel.isWritable { connection.pauseReading() }
    }

    func upstream(_ connection: UpstreamConnection, failed failure: UpstreamFailure) {
        disarm()
        upstream = nil
        if let tunnel {
            tunnel.close()
            self.tunnel = nil
            return
        }
        switch failure {
        case .closedBeforeResponse where attempts == 1 && isRetriable:
            // A pooled connection the upstream had already closed, or a backend that went away
            // (restarted, killed) before answering: the request is idempotent and has no body,
            // so it is sent once more on a new connection (RFC 9110 §9.2.2), to the next address
            // in turn. The answer is still awaited, now from the new connection.
            handler.count(.retried)
            response = .awaitingHead
            // Another address when there is one not tried yet (the backend at this one may be
            // going away); the same one when it is the only one.
            if failedAddresses.count + 1 < pool.addresses.addressCount { failedAddresses.append(connection.address) }
            connectAndSend(fresh: true)
        case .connectFailed(let code) where retryOnNextAddress(after: connection, reason: code == ETIMEDOUT ? "timeout" : "refused"):
            break
        case .connectFailed, .closedBeforeResponse:
            handler.count(.connectFailed)
            respondError(502, "Upstream unavailable")
        case .invalidResponse:
            handler.count(.invalidResponse)
            respondError(502, "Upstream sent an invalid response")
        case .closedMidResponse:
            handler.count(.resetMidResponse)
            respondError(502, "Upstream closed the connection")
        }
    }

    /// Idempotent and no body byte was forwarded: retrying cannot repeat a side effect.
    private var isRetriable: Bool {
        ["GET", "HEAD", "OPTIONS", "PUT", "DELETE"].contains(upstreamHead.method) && !exchange.hasRequestBody
    }

    // MARK: Tunnel

    private func startTunnel(_ connection: UpstreamConnection) {
        connection.startTunnel()
        tunnelUpstream = connection
        // The client connection holds this exchange as its tunnel's delegate for the tunnel's
        // life, which keeps it (the upstream connection's delegate) alive until either side closes.
        tunnel = exchange.startTunnel(delegate: self)
    }

    func tunnel(_ tunnel: Tunnel, received bytes: ArraySlice<UInt8>) {
        guard let connection = tunnelUpstream else { return }
        _ = framesToUpstream.follow(bytes)
        connection.write(bytes)
        if !connection.isBelowWatermark { self.tunnel?.pause() }
    }

    func tunnelDidBecomeWritable(_ tunnel: Tunnel) {
        tunnelUpstream?.resumeReading()
    }

    func tunnelDidClose(_ tunnel: Tunnel) {
        tunnelUpstream?.close()
        self.tunnel = nil
        cancelCredentialExpiry()
    }

    /// The client side's exchange is over (answered, aborted, or become a tunnel). Unless a
    /// tunnel carries on, nothing is left for the credential's deadline to end.
    func clientExchangeEnded() {
        switch response {
        case .tunnel, .endingTunnel: break
        case .awaitingHead, .interim, .streaming, .collecting, .done, .finished: cancelCredentialExpiry()
        }
    }

    // MARK: Credential expiry

    /// The close code and reason a tunnel ends with when its credential expires (documented in
    /// docs/identity.md): in the private range (RFC 6455 §7.4.2), after HTTP's 401.
    static let credentialExpiredCloseCode: UInt16 = 4401
    static let credentialExpiredReason = "credential expired"

    /// How long a tunnel may take to reach a frame boundary once its credential expired.
    private static let tunnelEndingTimeout: Duration = .seconds(10)

    /// Arms (or re-arms) the credential's deadline; see `ForwardedExchange.endWhenCredentialExpires`.
    func endWhenCredentialExpires(after delay: Duration, onExpiry: @escaping () -> Void) {
        let loop = exchange.loop
        // Weak: the loop's heap holds the timer, and the timer must not keep an exchange alive
        // that is over (it is cancelled then anyway).
        let timer = credentialExpiry?.timer ?? loop.makeTimer { [weak self] in self?.credentialExpired() }
        credentialExpiry = (timer, onExpiry)
        loop.arm(timer, after: delay)
    }

    private func credentialExpired() {
        guard let expiry = credentialExpiry else { return }
        cancelCredentialExpiry()
        expiry.onExpiry()
        endForExpiredCredential()
    }

    private func cancelCredentialExpiry() {
        guard let expiry = credentialExpiry else { return }
        credentialExpiry = nil
        exchange.loop.cancel(expiry.timer)
    }

    /// Ends a long-lived answer whose credential expired, in a way the client can tell from a
    /// network failure: a WebSocket gets a close frame (code 4401), an event stream the end of
    /// its chunked body. Anything else is cut.
    func endForExpiredCredential() {
        switch response {
        case .tunnel:
            guard let connection = upstream, tunnel != nil else { return }
            response = .endingTunnel
            if framesToClient.isAtFrameBoundary {
                closeTunnel(connection)
                return
            }
            exchange.loop.schedule(after: Self.tunnelEndingTimeout) { [weak self] in
                guard let self, self.tunnel != nil else { return }
                self.tunnel?.close()
                self.tunnel = nil
                self.upstream?.close()
            }
        case .streaming:
            response = .finished
            disarm()
            let connection = upstream
            upstream = nil
            connection?.release(reusable: false)
            exchange.finish()
        case .awaitingHead, .interim, .collecting, .done:
            response = .finished
            let connection = upstream
            upstream = nil
            connection?.release(reusable: false)
            exchange.abortConnection()
        case .endingTunnel, .finished:
            // Already ending, or over: nothing of it is left to end.
            break
        }
    }

    /// Both ends get a close frame (the upstream's masked, as a client's must be, and only
    /// between frames), then the connections close once it is written.
    private func closeTunnel(_ connection: UpstreamConnection) {
        let code = Self.credentialExpiredCloseCode
        let reason = Self.credentialExpiredReason
        tunnel?.send(WebSocketFrameTracker.closeFrame(code: code, reason: reason))
        tunnel?.close()
        tunnel = nil
        if framesToUpstream.isAtFrameBoundary {
            var maskingKey = [UInt8](repeating: 0, count: 4)
            var generator = SystemRandomNumberGenerator()
            for index in maskingKey.indices { maskingKey[index] = generator.next() }
            connection.write(WebSocketFrameTracker.closeFrame(code: code, reason: reason, maskingKey: maskingKey))
        }
        connection.closeAfterFlush()
        upstream = nil
    }

    // MARK: Timers

    private enum Phase { case connect, response }

    /// The deadline lives on the upstream connection (one timer for its life, re-armed per
    /// exchange), so an exchange allocates none.
    private func arm(_ timeoutNanoseconds: UInt64, phase: Phase) {
        deadlinePhase = phase
        upstream?.arm(after: timeoutNanoseconds)
    }

    private func disarm() {
        upstream?.disarm()
    }

    func upstreamDeadlinePassed(_ connection: UpstreamConnection) {
        guard connection === upstream else { return }
        timedOut(deadlinePhase)
    }

    private func timedOut(_ phase: Phase) {
        let connection = upstream
        upstream = nil
        connection?.release(reusable: false)
        switch phase {
        case .connect:
            if let connection, retryOnNextAddress(after: connection, reason: "timeout") { return }
            handler.count(.connectTimeout)
            respondError(502, "Upstream unavailable")
        case .response:
            handler.count(.responseTimeout)
            respondError(504, "Upstream timed out")
        }
    }

    // MARK: Ending

    private func respondError(_ status: Int, _ detail: String, logDetail: String? = nil) {
        guard !response.isFinished else { return }
        response = .finished
        exchange.resumeBody()  // the rest of an upload is drained, not left paused
        // A head (and body) still queued, none of it sent, is replaced by the error; once bytes
        // have left, closing the connection is the only honest signal.
        if exchange.hasResponseStartedPublic && !exchange.retractResponse() {
            exchange.abortConnection()
        } else {
            exchange.respondJSONError(status: status, detail: detail)
        }
        handler.logUpstreamError(status: status, detail: logDetail ?? detail, requestID: requestID)
    }

    private func maybeRelease() {
        guard case .done = response, request.isComplete else { return }
        response = .finished
        let connection = upstream
        upstream = nil
        connection?.release(reusable: true)
    }

    private func clientGone() {
        disarm()
        response = .finished
        let connection = upstream
        upstream = nil
        connection?.release(reusable: false)
        tunnel = nil
    }
}

/// Where the upstream's answer to one exchange is.
private enum ResponseState {
    /// Nothing yet, or only finished interim (1xx) answers.
    case awaitingHead
    /// A 1xx head arrived; its end comes next, then the final head.
    case interim
    /// The final head went to the client; the body is relayed as it comes.
    case streaming
    /// A mediated answer is collected whole before it is reshaped.
    case collecting
    /// A 101 to a WebSocket upgrade: raw bytes both ways.
    case tunnel
    /// The credential expired: the tunnel ends at the next frame boundary toward the client.
    case endingTunnel
    /// The upstream's answer is complete; the connection goes back to the pool once the request
    /// is complete too.
    case done
    /// Over: answered (by the upstream or with an error), refused, or the client left. The
    /// upstream connection was released; later events change nothing.
    case finished

    var isFinished: Bool {
        if case .finished = self { return true }
        return false
    }

    /// Whether nothing more is expected from the upstream.
    var isAnswered: Bool {
        switch self {
        case .done, .finished: true
        case .awaitingHead, .interim, .streaming, .collecting, .tunnel, .endingTunnel: false
        }
    }
}

/// Where the request is on its way to the upstream.
private enum RequestState {
    /// The body (there is one) is not read yet: it is asked for once the head is queued upstream.
    case headOnly
    /// Body chunks go upstream as they arrive.
    case relaying
    /// Body chunks go through the mediation's filter first; the upstream sees only what it releases.
    case filtering(any RequestBodyFilter)
    /// The whole request was sent (or there was no body).
    case complete

    var isComplete: Bool {
        if case .complete = self { return true }
        return false
    }
}
