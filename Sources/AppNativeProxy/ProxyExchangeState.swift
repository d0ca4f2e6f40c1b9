import AppNativeHTTP
import AppNativeServer
import Glibc

/// The phases of one proxied exchange and every transition between them: the request on its way
/// to the upstream (head, relayed or filtered body), the connection it travels on (dialled,
/// connected, retried on a fresh one or another address, moved to the route's next URL), the
/// upstream's answer (interim heads, a relayed or collected body, a WebSocket switch), the
/// deadlines, and the ways it ends early (an error answer, the client leaving, the credential
/// expiring).
///
/// Pure: each event returns what to do, and `ProxyExchange` does it after the transition, so an
/// action that leads to another event (a connect that fails at once, a connection that closes
/// when released) finds the machine already in its next state. Generic over the connection so
/// tests drive it with plain objects instead of sockets.
struct ProxyExchangeState<Connection: DialledConnection> {
    /// How request body bytes are written upstream.
    enum BodyFraming: Equatable {
        case chunked
        /// As they come: a `Content-Length` body.
        case asIs
    }

    /// Where the request is on its way to the upstream.
    enum Request {
        /// The body (there is one) is not read yet: it is asked for once the head is queued upstream.
        case headOnly(BodyFraming)
        /// Body chunks go upstream as they arrive.
        case relaying(BodyFraming)
        /// Body chunks go through the mediation's filter first; the upstream sees only what it
        /// releases, and is contacted only once it releases something.
        case filtering(any RequestBodyFilter, FilteredUpstream)
        /// The whole request was sent (or there was no body).
        case complete
    }

    /// Whether the filtered body has an upstream request yet.
    enum FilteredUpstream: Equatable {
        /// Nothing released yet: no connection, no head.
        case held
        /// The head went out chunked; released bytes follow as chunks.
        case chunked
    }

    /// Where the upstream's answer is.
    enum Response {
        /// Nothing yet, or only finished interim (1xx) answers.
        case awaitingHead
        /// A 1xx head arrived; its end comes next, then the final head.
        case interim
        /// The final head went to the client; the body is relayed as it comes.
        case streaming
        /// A mediated answer is collected whole before it is reshaped.
        case collecting(Collected)
        /// A 101 to a WebSocket upgrade: the connection belongs to the tunnel.
        case tunnelled
        /// The upstream's answer is complete; the connection goes back to the pool once the
        /// request is complete too.
        case done
        /// Over: answered (by the upstream or with an error), refused, or the client left. The
        /// upstream connection was released; later events change nothing.
        case finished
    }

    /// A mediated response collected so far.
    struct Collected {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
    }

    /// The connection the exchange is using.
    enum Upstream {
        /// None: not dialled yet (a held filtered body), or released.
        case none
        /// The TCP connect is under way; the connect deadline is armed.
        case connecting(Connection)
        /// Established; the response deadline runs once the request is complete.
        case connected(Connection)

        var connection: Connection? {
            switch self {
            case .none: nil
            case .connecting(let connection), .connected(let connection): connection
            }
        }
    }

    /// What the upstream's answer goes through.
    enum ResponseHandling {
        case relayed
        case mediated(any ResponseMediator)
    }

    // MARK: The request's facts

    let method: String
    let hasRequestBody: Bool
    let asksForUpgrade: Bool
    let responseHandling: ResponseHandling
    /// The route's URLs: the first, then the alternates tried in order.
    let urlCount: Int

    // MARK: State

    private(set) var request: Request
    private(set) var response = Response.awaitingHead
    private(set) var upstream = Upstream.none
    /// Sends begun (a retry on a fresh connection is the second); moving to another address or
    /// URL after a failed connect is the same send.
    private(set) var attempts = 0
    /// The route URL in use (0: the first).
    private(set) var urlIndex = 0
    /// Addresses of the current URL this exchange's connects failed on, not dialled again.
    private(set) var failedAddresses: [SocketAddress] = []

    init(
        method: String,
        bodyFraming: HTTPBodyFraming,
        hasRequestBody: Bool,
        filter: (any RequestBodyFilter)?,
        responseMediator: (any ResponseMediator)?,
        asksForUpgrade: Bool,
        urlCount: Int
    ) {
        self.method = method
        self.hasRequestBody = hasRequestBody
        self.asksForUpgrade = asksForUpgrade
        self.urlCount = urlCount
        responseHandling = responseMediator.map { .mediated($0) } ?? .relayed
        if let filter, hasRequestBody {
            request = .filtering(filter, .held)
        } else if hasRequestBody {
            if case .chunked = bodyFraming { request = .headOnly(.chunked) } else { request = .headOnly(.asIs) }
        } else {
            request = .complete
        }
    }

    var isRequestComplete: Bool {
        if case .complete = request { return true }
        return false
    }

    var isFinished: Bool {
        if case .finished = response { return true }
        return false
    }

    var isTunnelled: Bool {
        if case .tunnelled = response { return true }
        return false
    }

    /// Whether nothing more is expected from the upstream.
    private var isAnswered: Bool {
        switch response {
        case .done, .finished: true
        case .awaitingHead, .interim, .streaming, .collecting, .tunnelled: false
        }
    }

    /// Idempotent and no body byte was forwarded: retrying cannot repeat a side effect
    /// (RFC 9110 §9.2.2).
    var isRetriable: Bool {
        !hasRequestBody && ["GET", "HEAD", "OPTIONS", "PUT", "DELETE"].contains(method)
    }

    // MARK: Actions

    /// A connection to ask for: pooled unless `fresh`, to route URL `urlIndex`, not to `excluding`.
    struct Dial: Equatable {
        var urlIndex: Int
        var fresh: Bool
        var excluding: [SocketAddress]
    }

    /// What the deadline on the exchange's connection does.
    enum Deadline: Equatable {
        case unchanged
        case armConnect
        case armResponse
        case disarm
    }

    /// How the exchange ends with a connection it no longer needs.
    enum Release {
        /// Back to the pool if the connection can carry another exchange.
        case reuse(Connection)
        case close(Connection)
    }

    /// Why the exchange is answered with an error of the gateway's.
    enum Failure {
        /// No connection could be started (the host does not resolve, or every address refused).
        case cannotConnect(UpstreamPool.ConnectError)
        /// Every address refused or reset before an answer began.
        case connectFailed
        case connectTimedOut
        case responseTimedOut
        case invalidResponse
        /// A 101 nobody asked for: it would tunnel the client's next bytes to the upstream
        /// unauthenticated and unfiltered (RFC 9110 §15.2.2: a 101 answers an Upgrade).
        case unaskedSwitch
        /// A mediated answer larger than the mediator holds.
        case responseTooLarge
        case closedMidResponse
    }

    /// What starting the exchange does.
    enum StartAction {
        case dial(Dial)
        /// Read the body into the filter first; the upstream is dialled once it releases bytes.
        case readBody
    }

    /// What a connection obtained for the request does.
    enum SendAction {
        /// Queue the head on `connection`, set its deadline, and ask the client for the body
        /// (`readsBody`) once the head is queued.
        case sendHead(Connection, Deadline, readsBody: Bool)
    }

    /// What a failed connect attempt (refused at once, no address) leads to.
    enum DialFailureAction {
        /// The route's next URL.
        case dial(Dial)
        case fail(Failure)
        case none
    }

    /// What a body chunk from the client leads to.
    enum BodyAction {
        /// Write `chunk` upstream in `framing`; pause the client if the connection is full.
        case forward(Connection, ArraySlice<UInt8>, BodyFraming)
        /// Pass `chunk` through the filter; its verdict comes back as `filterReleased`/`filterRefused`.
        case filter(any RequestBodyFilter, ArraySlice<UInt8>)
        case none
    }

    /// What the end of the client's body leads to.
    enum BodyEndAction {
        /// Write the last chunk with trailers (chunked bodies), set the deadline, then release.
        case end(Connection?, BodyFraming, Deadline, Release?)
        /// Ask the filter for what is left; its verdict comes back as `filterFinished`/`filterRefused`.
        case finishFilter(any RequestBodyFilter)
        case none
    }

    /// What bytes the filter released lead to.
    enum FilteredAction {
        /// Set the upstream head's framing (`contentLength` when the whole body is known,
        /// chunked otherwise) and dial; the released bytes are offered again once connected.
        case openUpstream(contentLength: Int?, Dial)
        /// Write `bytes` upstream.
        case write(Connection, ArraySlice<UInt8>, BodyFraming)
        /// Write the last bytes and the end of the chunked body, set the deadline, then release.
        case end(Connection, [UInt8], Deadline, Release?)
        case none
    }

    /// What an upstream response event leads to.
    enum ResponseAction {
        /// A 1xx other than 100 for the client (100 is ours to send; mediated routes get none).
        case relayInterim(HTTPResponseHead)
        /// The final head for the client; the deadline is over.
        case relayHead(HTTPResponseHead)
        /// The final head of a mediated answer arrived; the deadline is over.
        case collect
        /// The 101 for the client; the connection becomes the tunnel's.
        case startTunnel(HTTPResponseHead, Connection)
        /// Body bytes for the client; pause the upstream if the client is not draining.
        case relayBody(ArraySlice<UInt8>)
        /// The body's end (and trailers) for the client, then release.
        case finish(HTTPHeaders?, Release?)
        /// The mediator reshapes the whole answer for the client, then release.
        case answerCollected(Collected, any ResponseMediator, Release?)
        /// End the exchange with the gateway's error, the connection released first.
        case fail(Failure, Release?)
        /// Only release: the exchange is over already.
        case release(Release)
        case none
    }

    /// What the end of the exchange's connection (failed, or its deadline passed) leads to.
    enum UpstreamEndAction {
        /// Eject `address` from URL `ejectFrom`'s addresses, move the unsent request off
        /// `connection` (its connect never completed) and dial `dial` for it.
        case resend(from: Connection, ejectFrom: Int, address: SocketAddress, reason: String, dial: Dial)
        /// Send the request again on a fresh connection (the old one closed before answering).
        case retry(Dial)
        case fail(Failure, Release?)
        /// Only release: the exchange is over already.
        case release(Release)
        /// Not the exchange's connection (any more): nothing to do.
        case none
    }

    /// What the credential's expiry does to an exchange that is not a tunnel.
    enum ExpiryAction {
        /// End the streamed body cleanly (an event stream's end).
        case finishBody(Release?)
        /// Cut the client connection: nothing can end cleanly.
        case abort(Release?)
        /// The tunnel ends itself at a frame boundary.
        case endTunnel
        case none
    }

    // MARK: Starting and connecting

    mutating func start() -> StartAction {
        if case .filtering = request { return .readBody }
        attempts += 1
        return .dial(Dial(urlIndex: urlIndex, fresh: false, excluding: failedAddresses))
    }

    /// `connection` was obtained for the request (`isConnected` for a pooled one).
    mutating func sendStarted(on connection: Connection, isConnected: Bool) -> SendAction {
        upstream = isConnected ? .connected(connection) : .connecting(connection)
        // The response timeout runs from the end of the request: a long upload is bounded by the
        // client's body-idle timeout instead, not cut at UPSTREAM_RESPONSE_TIMEOUT.
        let deadline: Deadline = isConnected ? (isRequestComplete ? .armResponse : .unchanged) : .armConnect
        if case .headOnly(let framing) = request {
            request = .relaying(framing)
            return .sendHead(connection, deadline, readsBody: true)
        }
        return .sendHead(connection, deadline, readsBody: false)
    }

    /// A new connection for a request moved off a connection whose connect failed.
    mutating func resendStarted(on connection: Connection) {
        upstream = .connecting(connection)
    }

    /// Dialling failed at once (no address, every address refused): the route's next URL, or
    /// the error answer.
    mutating func dialFailed(_ error: UpstreamPool.ConnectError) -> DialFailureAction {
        if moveToAlternate() { return .dial(Dial(urlIndex: urlIndex, fresh: true, excluding: [])) }
        upstream = .none
        return answersError() ? .fail(.cannotConnect(error)) : .none
    }

    /// Moves to the route's next URL; returns whether there was one.
    private mutating func moveToAlternate() -> Bool {
        guard urlIndex + 1 < urlCount else { return false }
        urlIndex += 1
        failedAddresses = []
        return true
    }

    // MARK: Client events

    mutating func bodyReceived(_ chunk: ArraySlice<UInt8>) -> BodyAction {
        switch request {
        case .relaying(let framing):
            guard let connection = upstream.connection else { return .none }
            return .forward(connection, chunk, framing)
        case .filtering(let filter, _):
            guard !isFinished else { return .none }
            return .filter(filter, chunk)
        case .headOnly, .complete:
            return .none
        }
    }

    mutating func bodyEnded() -> BodyEndAction {
        switch request {
        case .relaying(let framing):
            request = .complete
            let deadline: Deadline = if case .connected = upstream, !isAnswered { .armResponse } else { .unchanged }
            let connection = upstream.connection
            return .end(connection, framing, deadline, releaseIfDone())
        case .filtering(let filter, _):
            guard !isFinished else { return .none }
            return .finishFilter(filter)
        case .headOnly, .complete:
            return .none
        }
    }

    /// The filter released `bytes` of the body.
    mutating func filterReleased(_ bytes: [UInt8]) -> FilteredAction {
        guard !isFinished, !bytes.isEmpty, case .filtering(let filter, let upstreamState) = request else { return .none }
        switch upstreamState {
        case .held:
            request = .filtering(filter, .chunked)
            attempts += 1
            return .openUpstream(contentLength: nil, Dial(urlIndex: urlIndex, fresh: false, excluding: failedAddresses))
        case .chunked:
            guard let connection = upstream.connection else { return .none }
            return .write(connection, bytes[...], .chunked)
        }
    }

    /// The filter released the rest of the body at its end.
    mutating func filterFinished(_ bytes: [UInt8]) -> FilteredAction {
        guard !isFinished, case .filtering(_, let upstreamState) = request else { return .none }
        request = .complete
        switch upstreamState {
        case .held:
            attempts += 1
            return .openUpstream(contentLength: bytes.count, Dial(urlIndex: urlIndex, fresh: false, excluding: failedAddresses))
        case .chunked:
            guard let connection = upstream.connection else { return .none }
            let deadline: Deadline = if case .connected = upstream { .armResponse } else { .unchanged }
            return .end(connection, bytes, deadline, releaseIfDone())
        }
    }

    /// The whole filtered body, released at its end, for the connection just opened for it.
    func filteredBodyConnection() -> Connection? {
        guard !isFinished else { return nil }
        return upstream.connection
    }

    /// The filter refused the body: the upstream (if it saw anything) loses its connection, so
    /// a half-sent body is never taken for a complete one. Returns the connection to close.
    mutating func filterRefused() -> Connection? {
        response = .finished
        let connection = upstream.connection
        upstream = .none
        return connection
    }

    /// The client's connection can take more: the upstream may be read again.
    func clientWritable() -> Connection? {
        upstream.connection
    }

    /// The client went away (or its exchange died): returns the connection to close.
    mutating func clientAborted() -> Connection? {
        response = .finished
        let connection = upstream.connection
        upstream = .none
        return connection
    }

    // MARK: Upstream events

    /// The TCP connect completed: the connect deadline is over; the response deadline runs if
    /// the request is already complete, otherwise the body's pace is the client's.
    mutating func connected(_ connection: Connection) -> Deadline {
        guard case .connecting(let current) = upstream, current === connection else { return .unchanged }
        upstream = .connected(connection)
        return isRequestComplete ? .armResponse : .disarm
    }

    /// One parser event of the upstream's answer on `connection`; `body` is the event's bytes
    /// for `.body`.
    mutating func responseEvent(_ event: HTTPParserEvent<HTTPResponseHead>, in buffer: ArraySlice<UInt8>, on connection: Connection) -> ResponseAction {
        // By event, then by phase: a switch over the pair would copy the event into a tuple.
        switch event {
        case .head(let head, _):
            switch response {
            case .awaitingHead where head.status < 200 && head.status != 101:
                // RFC 9110 §15.2: interim answers precede the final one; the response timeout
                // keeps running until that arrives.
                response = .interim
                guard head.status != 100, case .relayed = responseHandling else { return .none }
                return .relayInterim(head)
            case .awaitingHead:
                return finalHead(head, on: connection)
            case .tunnelled, .done, .finished:
                // Events after an error answer.
                return .none
            case .interim, .collecting, .streaming:
                // The parser delivers head, body, end in order; nothing else can arrive here.
                return fail(.invalidResponse, release: cut())
            }
        case .body(let range):
            let bytes = buffer[(buffer.startIndex + range.lowerBound)..<(buffer.startIndex + range.upperBound)]
            switch response {
            case .streaming:
                return .relayBody(bytes)
            case .collecting(var collected):
                guard case .mediated(let mediator) = responseHandling else { return .none }
                response = .finished  // moved out while it grows, so the body is not copied
                collected.body.append(contentsOf: bytes)
                if collected.body.count > mediator.maxUpstreamBodyBytes {
                    // Collecting, so not answered yet: the error is this exchange's answer.
                    let release = cut()
                    return .fail(.responseTooLarge, release)
                }
                response = .collecting(collected)
                return .none
            case .tunnelled, .done, .finished:
                return .none
            case .awaitingHead, .interim:
                return fail(.invalidResponse, release: cut())
            }
        case .end(let trailers):
            switch response {
            case .interim:
                response = .awaitingHead
                return .none
            case .streaming:
                response = .done
                return .finish(trailers, releaseIfDone())
            case .collecting(let collected):
                response = .done
                guard case .mediated(let mediator) = responseHandling else { return .finish(nil, releaseIfDone()) }
                return .answerCollected(collected, mediator, releaseIfDone())
            case .tunnelled, .done, .finished:
                // The 101's own end, or events after an error answer.
                return .none
            case .awaitingHead:
                return fail(.invalidResponse, release: cut())
            }
        }
    }

    private mutating func finalHead(_ head: HTTPResponseHead, on connection: Connection) -> ResponseAction {
        let isUpgrade = head.status == 101
        if isUpgrade && !(asksForUpgrade && WebSocketHandshake.isAcceptance(head)) {
            return fail(.unaskedSwitch, release: cut())
        }
        if case .mediated = responseHandling {
            response = .collecting(Collected(status: head.status, headers: head.headers, body: []))
            return .collect
        }
        if isUpgrade {
            response = .tunnelled
            upstream = .none
            return .startTunnel(head, connection)
        }
        response = .streaming
        return .relayHead(head)
    }

    /// The exchange's connection closed or failed (it is closed already).
    mutating func upstreamFailed(_ failure: UpstreamFailure, on connection: Connection, addressCount: Int) -> UpstreamEndAction {
        guard let current = upstream.connection, current === connection else { return .none }
        let wasConnecting = if case .connecting = upstream { true } else { false }
        upstream = .none
        switch failure {
        case .closedBeforeResponse where attempts == 1 && isRetriable:
            // A pooled connection the upstream had already closed, or a backend that went away
            // (restarted, killed) before answering: sent once more on a new connection, to the
            // next address in turn (another address when there is one not tried yet: the backend
            // at this one may be going away; the same one when it is the only one).
            response = .awaitingHead
            if failedAddresses.count + 1 < addressCount { failedAddresses.append(connection.address) }
            attempts += 1
            return .retry(Dial(urlIndex: urlIndex, fresh: true, excluding: failedAddresses))
        case .connectFailed(let code) where wasConnecting:
            if let resend = resend(after: connection, reason: code == ETIMEDOUT ? "timeout" : "refused", addressCount: addressCount) {
                return resend
            }
            return fail(.connectFailed, release: nil)
        case .connectFailed, .closedBeforeResponse:
            return fail(.connectFailed, release: nil)
        case .invalidResponse:
            return fail(.invalidResponse, release: nil)
        case .closedMidResponse:
            return fail(.closedMidResponse, release: nil)
        }
    }

    /// The deadline armed on `connection` passed.
    mutating func deadlinePassed(on connection: Connection, addressCount: Int) -> UpstreamEndAction {
        switch upstream {
        case .connecting(let current) where current === connection:
            upstream = .none
            if let resend = resend(after: connection, reason: "timeout", addressCount: addressCount) {
                return resend
            }
            return fail(.connectTimedOut, release: .close(connection))
        case .connected(let current) where current === connection:
            upstream = .none
            return fail(.responseTimedOut, release: .close(connection))
        case .none, .connecting, .connected:
            return .none
        }
    }

    /// A connect to `connection`'s address was refused or timed out before any byte of the
    /// request left: the address is ejected, and the request goes to the next address (or the
    /// route's next URL once every listed one failed).
    private mutating func resend(after connection: Connection, reason: String, addressCount: Int) -> UpstreamEndAction? {
        let ejectFrom = urlIndex
        failedAddresses.append(connection.address)
        if failedAddresses.count >= addressCount, !moveToAlternate() { return nil }
        return .resend(
            from: connection,
            ejectFrom: ejectFrom,
            address: connection.address,
            reason: reason,
            dial: Dial(urlIndex: urlIndex, fresh: true, excluding: failedAddresses)
        )
    }

    // MARK: Credential expiry

    /// The credential the exchange was admitted with expired.
    mutating func credentialExpired() -> ExpiryAction {
        switch response {
        case .tunnelled:
            return .endTunnel
        case .streaming:
            response = .finished
            return .finishBody(cut())
        case .awaitingHead, .interim, .collecting, .done:
            response = .finished
            return .abort(cut())
        case .finished:
            return .none
        }
    }

    // MARK: Ending

    /// Whether the exchange is answered with an error (it is not over yet); it is over after.
    private mutating func answersError() -> Bool {
        guard !isFinished else { return false }
        response = .finished
        return true
    }

    /// Ends the exchange with the gateway's error unless it is over already; `release` happens
    /// either way.
    private mutating func fail(_ failure: Failure, release: Release?) -> ResponseAction {
        if answersError() { return .fail(failure, release) }
        return release.map { .release($0) } ?? .none
    }

    private mutating func fail(_ failure: Failure, release: Release?) -> UpstreamEndAction {
        if answersError() { return .fail(failure, release) }
        return release.map { .release($0) } ?? .none
    }

    /// Lets go of the connection without reuse (its exchange is cut short).
    private mutating func cut() -> Release? {
        let connection = upstream.connection
        upstream = .none
        return connection.map { .close($0) }
    }

    /// Both the request and the answer are complete: the connection goes back to the pool.
    private mutating func releaseIfDone() -> Release? {
        guard case .done = response, isRequestComplete else { return nil }
        response = .finished
        let connection = upstream.connection
        upstream = .none
        return connection.map { .reuse($0) }
    }
}
