import AppNativeCore
internal import CAppNativeLinux
import Glibc

/// Accepts connections on one loop's listening socket and hands them to `ServerConnection`s.
final class Acceptor: EventHandler {
    let socket: ListeningSocket
    private unowned let context: LoopContext
    init(socket: ListeningSocket, context: LoopContext) {
        self.socket = socket
        self.context = context
    }

    /// Delay before retrying after the process or system ran out of descriptors or memory.
    private var backoff: Duration = .zero
    private var isRetryScheduled = false
    private static let initialBackoff: Duration = .milliseconds(10)
    private static let maximumBackoff: Duration = .seconds(1)

    func handle(events: IOEvents) {
        // Edge-triggered: accept until the queue is empty.
        while true {
            let accepted: (fd: Int32, peer: SocketAddress?)
            do {
                guard let next = try socket.accept() else { break }
                accepted = next
            } catch {
                switch error.errno {
                case EINTR, ECONNABORTED, EPROTO, EPERM:
                    // This connection is gone (or the call was interrupted); the queue may hold more.
                    continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // The pending connections stay queued and no new edge will come for them:
                    // retry later instead of never accepting again.
                    scheduleRetry()
                    return
                default:
                    return
                }
            }
            backoff = .zero
            if context.isDraining {
                Glibc.close(accepted.fd)
                continue
            }
            if context.shared.openConnections.current >= context.configuration.maxConnections {
                context.shared.rejectedConnections.increment()
                Glibc.close(accepted.fd)
                continue
            }
            let transport: any ConnectionTransport
            if let tls = context.configuration.tls {
                guard let session = tls.makeTransport(fd: accepted.fd) else {
                    Glibc.close(accepted.fd)
                    continue
                }
                transport = session
            } else {
                transport = PlainTransport(fd: accepted.fd)
            }
            let connection = ServerConnection(
                fd: accepted.fd, peer: accepted.peer, transport: transport, isSecure: context.configuration.tls != nil, context: context
            )
            do {
                try context.loop.register(accepted.fd, events: [.readable, .writable, .peerClosed], handler: connection)
            } catch {
                Glibc.close(accepted.fd)
                continue
            }
            context.add(connection)
            context.shared.openConnections.add(1)
            context.shared.acceptedConnections.increment()
            // Data may already be waiting: the edge happened before registration.
            connection.handle(events: .readable)
        }
    }

    private func scheduleRetry() {
        guard !isRetryScheduled else { return }
        backoff = backoff == .zero ? Self.initialBackoff : min(backoff * 2, Self.maximumBackoff)
        isRetryScheduled = true
        _ = context.loop.schedule(after: backoff) { [weak self] in
            guard let self else { return }
            self.isRetryScheduled = false
            guard !self.context.isDraining else { return }
            self.handle(events: .readable)
        }
    }
}
