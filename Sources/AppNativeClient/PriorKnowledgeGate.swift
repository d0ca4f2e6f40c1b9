/// Works around a libcurl bug for cleartext HTTP/2 with prior knowledge (h2c, used only for
/// loopback fakes): before 8.0 (Debian 12 ships 7.88.1), a transfer that asks for
/// `CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE` and *reuses* an h2c connection switches in a second
/// HTTP/2 layer and silently ends without sending anything (curl/curl#10634, fixed in 8.0 by
/// curl/curl#10643). A transfer asking for `CURL_HTTP_VERSION_2_0` reuses the connection fine,
/// but would open a new one with an HTTP/1.1 `Upgrade`, which h2c-only fakes refuse.
///
/// So per origin, one transfer at a time opens the connection with prior knowledge while the
/// others wait; once it answered, every transfer joins the open connection with `2_0`. A lost
/// connection sends the next transfer back to opening. A value-type state machine (docs/style.md §5)
/// driven by the worker thread; `Ticket` is whatever the worker needs to start a held transfer.
struct PriorKnowledgeGate<Ticket> {
    /// How to start a transfer.
    enum Decision: Equatable {
        /// No connection: open one with prior knowledge; report the outcome with `openerFinished`.
        case open
        /// A connection is open: join it (`CURL_HTTP_VERSION_2_0`).
        case join
        /// Another transfer is opening the connection: hold this one until it finishes.
        case wait
    }

    private enum State {
        case opening(waiting: [Ticket])
        case open
    }

    private var origins: [String: State] = [:]

    /// Whether libcurl has the bug (version below 8.0.0).
    static func isNeeded(libcurlVersion: UInt32) -> Bool { libcurlVersion < 0x08_00_00 }

    /// Admits a transfer to `origin`.
    mutating func admit(_ ticket: Ticket, origin: String) -> Decision {
        switch origins[origin] {
        case nil:
            origins[origin] = .opening(waiting: [])
            return .open
        case .opening(var waiting):
            waiting.append(ticket)
            origins[origin] = .opening(waiting: waiting)
            return .wait
        case .open:
            return .join
        }
    }

    /// The opening transfer finished. On success the held transfers are returned to start with
    /// `.join`; on failure the origin is closed again and they are returned to be admitted anew,
    /// in order (the first becomes the next opener).
    mutating func openerFinished(origin: String, succeeded: Bool) -> (held: [Ticket], isOpen: Bool) {
        guard case .opening(let waiting) = origins[origin] else { return ([], false) }
        origins[origin] = succeeded ? .open : nil
        return (waiting, succeeded)
    }

    /// A joined transfer lost the connection: the next transfer opens a new one.
    mutating func connectionLost(origin: String) {
        if case .open = origins[origin] { origins[origin] = nil }
    }

    /// Removes and returns the held tickets matching `predicate` (cancellation, shutdown).
    mutating func removeHeld(where predicate: (Ticket) -> Bool) -> [Ticket] {
        var removed: [Ticket] = []
        for (origin, state) in origins {
            guard case .opening(let waiting) = state else { continue }
            removed += waiting.filter(predicate)
            origins[origin] = .opening(waiting: waiting.filter { !predicate($0) })
        }
        return removed
    }
}
