import AppNativeCore
import AppNativeHTTP
import AppNativeServer
import Glibc

/// Relays one client exchange to the upstream and the response back, streaming both ways with
/// backpressure. Its phases and every decision (framing, retries, alternates, deadlines, error
/// answers) are `ProxyExchangeState`'s; this class performs what the transitions return, after
/// them, on the client's exchange and the upstream connection. A 101 hands the connection to a
/// `ProxyTunnel`. Loop-owned.
final class ProxyExchange: UpstreamConnectionDelegate, HTTPExchangeDelegate {
    private let exchange: HTTPExchange
    private var state: ProxyExchangeState<UpstreamConnection>
    /// The route's first URL; `alternates` are its other URLs whose requests are written alike
    /// (same path prefix and `Host`), so the head already written stands on any of them.
    private let primary: UpstreamPool
    private let alternates: [UpstreamPool]
    private unowned let handler: ProxyHandler
    private var upstreamHead: HTTPRequestHead
    private let mediation: ExchangeMediation?
    /// The tunnel after a 101 (it holds this exchange, not the other way round).
    private weak var tunnel: ProxyTunnel?
    /// The deadline of the credential a long-lived answer was admitted with (an event stream, a
    /// WebSocket tunnel), and what to call when it passes; cancelled when the exchange and its
    /// tunnel are over.
    private var credentialExpiry: (timer: LoopTimer, onExpiry: () -> Void)?
    let requestID: String
    /// The gateway's span of this exchange, whose id the upstream received as its parent.
    var trace: TraceContext?
    private(set) var upstreamStartedAt: UInt64 = 0
    private(set) var upstreamDuration: UInt64 = 0

    /// The upstream this exchange is sent to: the route's URL in turn, or the next of
    /// `alternates` once every address of the first failed before a byte of the request left.
    var pool: UpstreamPool { pool(at: state.urlIndex) }

    private func pool(at index: Int) -> UpstreamPool {
        index == 0 ? primary : alternates[index - 1]
    }

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
        self.alternates = alternates
        self.exchange = exchange
        self.mediation = mediation
        primary = pool
        self.handler = handler
        self.upstreamHead = upstreamHead
        self.requestID = requestID
        state = ProxyExchangeState(
            method: upstreamHead.method,
            bodyFraming: exchange.framing,
            hasRequestBody: exchange.hasRequestBody,
            filter: mediation?.requestBody,
            responseMediator: mediation?.response,
            asksForUpgrade: asksForUpgrade,
            urlCount: alternates.count + 1
        )
    }

    func start() {
        exchange.delegate = self
        upstreamStartedAt = exchange.loop.nowNanoseconds
        switch state.start() {
        case .readBody: exchange.readBody()
        case .dial(let dial): self.dial(dial)
        }
    }

    // MARK: Connecting

    /// Sends the request on a pooled connection or a new one (always new when `dial.fresh`),
    /// moving on to the route's next URL while every address of one fails at once. `unsent` is
    /// a request moved off a connection whose connect failed, queued on the new one as it is.
    private func dial(_ dial: ProxyExchangeState<UpstreamConnection>.Dial, resending unsent: OutgoingBytes? = nil) {
        var dial = dial
        while true {
            let pool = pool(at: dial.urlIndex)
            if !dial.fresh, let idle = pool.takeIdle() {
                send(on: idle, isConnected: true)
                return
            }
            let connection: UpstreamConnection
            do {
                connection = try pool.connect(excluding: dial.excluding)
            } catch {
                switch state.dialFailed(error) {
                case .dial(let next):
                    dial = next
                    continue
                case .fail(let failure):
                    answer(failure)
                case .none:
                    break
                }
                return
            }
            connection.begin(method: upstreamHead.method, delegate: self)
            if let unsent {
                state.resendStarted(on: connection)
                handler.count(.retried)
                connection.adoptUnsentRequest(unsent)
                connection.arm(after: pool.connectTimeoutNanoseconds)
            } else {
                send(on: connection, isConnected: false)
            }
            return
        }
    }

    private func send(on connection: UpstreamConnection, isConnected: Bool) {
        if isConnected { connection.begin(method: upstreamHead.method, delegate: self) }
        switch state.sendStarted(on: connection, isConnected: isConnected) {
        case .sendHead(let connection, let deadline, let readsBody):
            // The head is queued now and flushed once the connection is established.
            connection.writeHead(upstreamHead)
            apply(deadline, to: connection)
            if readsBody { exchange.readBody() }
        }
    }

    // MARK: Client events

    func exchange(_ exchange: HTTPExchange, didReceiveBody chunk: ArraySlice<UInt8>) {
        switch state.bodyReceived(chunk) {
        case .forward(let connection, let chunk, let framing):
            write(chunk, framing, to: connection)
        case .filter(let filter, let chunk):
            let released: [UInt8]
            do { released = try filter.consume(chunk) } catch { return refuse(error) }
            filtered(state.filterReleased(released), released)
        case .none:
            break
        }
    }

    func exchange(_ exchange: HTTPExchange, didEndBodyWith trailers: HTTPHeaders?) {
        switch state.bodyEnded() {
        case .end(let connection, let framing, let deadline, let release):
            if let connection {
                if case .chunked = framing {
                    connection.writeLastChunk(trailers: TrailerFields.forwardable(trailers, removing: handler.removedFields))
                }
                apply(deadline, to: connection)
            }
            release.map(perform)
        case .finishFilter(let filter):
            let released: [UInt8]
            do { released = try filter.finish() } catch { return refuse(error) }
            filtered(state.filterFinished(released), released)
        case .none:
            break
        }
    }

    func exchangeDidBecomeWritable(_ exchange: HTTPExchange) {
        state.clientWritable()?.resumeReading()
    }

    func exchangeDidAbort(_ exchange: HTTPExchange) {
        state.clientAborted()?.release(reusable: false)
    }

    private func write(_ chunk: ArraySlice<UInt8>, _ framing: ProxyExchangeState<UpstreamConnection>.BodyFraming, to connection: UpstreamConnection) {
        switch framing {
        case .chunked: connection.writeChunk(chunk)
        case .asIs: connection.write(chunk)
        }
        if !connection.isBelowWatermark { exchange.pauseBody() }
    }

    // MARK: Filtered body (native routes)

    private func filtered(_ action: ProxyExchangeState<UpstreamConnection>.FilteredAction, _ released: [UInt8]) {
        switch action {
        case .openUpstream(let contentLength, let dial):
            // The head goes out once the filter released its first bytes: with `Content-Length`
            // when the whole body is known, chunked otherwise.
            upstreamHead.headers.remove("Content-Length")
            upstreamHead.headers.remove("Transfer-Encoding")
            if let contentLength {
                upstreamHead.headers.add(name: "Content-Length", value: String(contentLength))
            } else {
                upstreamHead.headers.add(name: "Transfer-Encoding", value: "chunked")
            }
            if let contentType = mediation?.requestBody?.upstreamContentType {
                upstreamHead.headers.replaceOrAdd(name: "Content-Type", value: contentType)
            }
            self.dial(dial)
            if contentLength == nil {
                filtered(state.filterReleased(released), released)
            } else {
                state.filteredBodyConnection()?.write(released)
            }
        case .write(let connection, let bytes, let framing):
            write(bytes, framing, to: connection)
        case .end(let connection, let bytes, let deadline, let release):
            if !bytes.isEmpty { connection.writeChunk(bytes[...]) }
            connection.writeLastChunk(trailers: nil)
            apply(deadline, to: connection)
            release.map(perform)
        case .none:
            break
        }
    }

    /// The filter refused the body: the upstream (if it saw anything) loses its connection, so
    /// a half-sent body is never taken for a complete one.
    private func refuse(_ answer: CompleteResponse) {
        state.filterRefused()?.release(reusable: false)
        // Whatever is left of the body is drained (or the connection closed) by the server.
        exchange.resumeBody()
        exchange.respond(status: answer.status, headers: answer.headers, body: answer.body)
    }

    // MARK: Upstream events

    func upstream(_ connection: UpstreamConnection, received event: HTTPParserEvent<HTTPResponseHead>, in buffer: ArraySlice<UInt8>) {
        responded(state.responseEvent(event, in: buffer, on: connection), on: connection)
    }

    func upstream(_ connection: UpstreamConnection, _ event: UpstreamEvent) {
        switch event {
        case .connected:
            apply(state.connected(connection), to: connection)
        case .writable:
            exchange.resumeBody()
        case .tunnelData:
            // A mediated route collecting a 101's answer: the bytes after it are nobody's.
            break
        case .failed(let failure):
            ended(state.upstreamFailed(failure, on: connection, addressCount: pool.addresses.addressCount))
        case .deadlinePassed:
            ended(state.deadlinePassed(on: connection, addressCount: pool.addresses.addressCount))
        }
    }

    private func responded(_ action: ProxyExchangeState<UpstreamConnection>.ResponseAction, on connection: UpstreamConnection) {
        switch action {
        case .relayInterim(var head):
            // `103 Early Hints` and the like reach HTTP/1.1 clients of unmediated routes.
            _ = HopByHopHeaders.remove(from: &head.headers)
            head.version = .http1_1
            exchange.sendInformational(head)
        case .relayHead(var head):
            headArrived(on: connection)
            _ = HopByHopHeaders.remove(from: &head.headers)
            head.version = .http1_1
            exchange.sendHead(head)
        case .collect:
            headArrived(on: connection)
        case .startTunnel(var head, let connection):
            headArrived(on: connection)
            _ = HopByHopHeaders.remove(from: &head.headers, keepingWebSocketUpgrade: true)
            head.headers.replaceOrAdd(name: "Connection", value: "Upgrade")
            head.version = .http1_1
            exchange.sendHead(head)
            startTunnel(on: connection)
        case .relayBody(let bytes):
            exchange.sendBody(bytes)
            if !exchange.isWritable { connection.pauseReading() }
        case .finish(let trailers, let release):
            exchange.finish(trailers: trailers)
            release.map(perform)
        case .answerCollected(let collected, let mediator, let release):
            let answer = mediator.answer(status: collected.status, headers: collected.headers, body: collected.body)
            exchange.respond(status: answer.status, headers: answer.headers, body: answer.body)
            release.map(perform)
        case .fail(let failure, let release): settle(releasing: release, answering: failure)
        case .release(let release): settle(releasing: release, answering: nil)
        case .none: break
        }
    }

    /// The exchange is over on the upstream side: the connection goes back (or away) first, so a
    /// failure's answer never waits on it.
    private func settle(releasing release: ProxyExchangeState<UpstreamConnection>.Release?, answering failure: ProxyExchangeState<UpstreamConnection>.Failure?) {
        release.map(perform)
        failure.map(answer)
    }

    /// The final head arrived: the response deadline is over.
    private func headArrived(on connection: UpstreamConnection) {
        connection.disarm()
        upstreamDuration = exchange.loop.nowNanoseconds - upstreamStartedAt
    }

    private func ended(_ action: ProxyExchangeState<UpstreamConnection>.UpstreamEndAction) {
        switch action {
        case .resend(let connection, let ejectFrom, let address, let reason, let dial):
            connection.release(reusable: false)
            pool(at: ejectFrom).addresses.eject(address, reason: reason, at: exchange.loop.nowNanoseconds)
            self.dial(dial, resending: connection.takeUnsentRequest())
        case .retry(let dial):
            handler.count(.retried)
            self.dial(dial)
        case .fail(let failure, let release): settle(releasing: release, answering: failure)
        case .release(let release): settle(releasing: release, answering: nil)
        case .none: break
        }
    }

    // MARK: Tunnel

    private func startTunnel(on connection: UpstreamConnection) {
        let tunnel = ProxyTunnel(upstream: connection, exchange: self, loop: exchange.loop)
        // The client's carrier holds the tunnel as its delegate for the tunnel's life, which
        // keeps it (and this exchange) alive until either side closes.
        guard let client = exchange.startTunnel(delegate: tunnel) else {
            connection.close()
            return
        }
        tunnel.attach(client)
        self.tunnel = tunnel
    }

    /// The tunnel's client side closed: nothing is left for the credential's deadline to end.
    func tunnelEnded() {
        cancelCredentialExpiry()
    }

    /// The client side's exchange is over (answered, aborted, or become a tunnel). Unless a
    /// tunnel carries on, nothing is left for the credential's deadline to end.
    func clientExchangeEnded() {
        if !state.isTunnelled { cancelCredentialExpiry() }
    }

    // MARK: Credential expiry

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
        switch state.credentialExpired() {
        case .endTunnel:
            tunnel?.endForExpiredCredential()
        case .finishBody(let release):
            release.map(perform)
            exchange.finish()
        case .abort(let release):
            release.map(perform)
            exchange.abortConnection()
        case .none:
            break
        }
    }

    // MARK: Performing

    private func apply(_ deadline: ProxyExchangeState<UpstreamConnection>.Deadline, to connection: UpstreamConnection) {
        switch deadline {
        case .unchanged: break
        case .armConnect: connection.arm(after: pool.connectTimeoutNanoseconds)
        case .armResponse: connection.arm(after: pool.responseTimeoutNanoseconds)
        case .disarm: connection.disarm()
        }
    }

    private func perform(_ release: ProxyExchangeState<UpstreamConnection>.Release) {
        switch release {
        case .reuse(let connection): connection.release(reusable: true)
        case .close(let connection): connection.release(reusable: false)
        }
    }

    /// Answers with the gateway's error: a head (and body) still queued, none of it sent, is
    /// replaced by the error; once bytes have left, closing the connection is the only honest
    /// signal. The log line names the host when it does not resolve (the request's own fields
    /// stay out of it).
    private func answer(_ failure: ProxyExchangeState<UpstreamConnection>.Failure) {
        let cause: ProxyHandler.ErrorCause
        let status: Int
        let detail: String
        var logDetail: String?
        switch failure {
        case .cannotConnect(let error):
            (cause, status, detail) = (.connectFailed, 502, "Upstream unavailable")
            switch error {
            case .unresolved: logDetail = "upstream host \(pool.addresses.target.host) does not resolve (no address to connect to)"
            case .system(let failure): logDetail = "upstream connect failed: \(failure)"
            }
        case .connectFailed: (cause, status, detail) = (.connectFailed, 502, "Upstream unavailable")
        case .connectTimedOut: (cause, status, detail) = (.connectTimeout, 502, "Upstream unavailable")
        case .responseTimedOut: (cause, status, detail) = (.responseTimeout, 504, "Upstream timed out")
        case .invalidResponse: (cause, status, detail) = (.invalidResponse, 502, "Upstream sent an invalid response")
        case .unaskedSwitch: (cause, status, detail) = (.invalidResponse, 502, "Upstream switched protocols without an upgrade request")
        case .responseTooLarge: (cause, status, detail) = (.invalidResponse, 502, "Upstream response too large")
        case .closedMidResponse: (cause, status, detail) = (.resetMidResponse, 502, "Upstream closed the connection")
        }
        handler.count(cause)
        exchange.resumeBody()  // the rest of an upload is drained, not left paused
        if exchange.hasResponseStartedPublic && !exchange.retractResponse() {
            exchange.abortConnection()
        } else {
            exchange.respondJSONError(status: status, detail: detail)
        }
        handler.logUpstreamError(status: status, detail: logDetail ?? detail, requestID: requestID)
    }
}
