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

    func handle(events: IOEvents) {
        // Edge-triggered: accept until the queue is empty.
        while let accepted = try? socket.accept() {
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
}
