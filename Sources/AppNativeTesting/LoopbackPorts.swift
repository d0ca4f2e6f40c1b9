import Foundation
import Glibc

// Unsafe (Glibc, tests only): socket addresses are local structs passed with their sizes; argv and
// envp are NUL-terminated arrays of strdup'ed strings freed after the spawn; buffers are borrowed
// with their counts for each call.

/// A 127.0.0.1 port that refuses connections for as long as this value lives: bound (the
/// kernel's choice) and never listening. Held, not closed after reading the port, so no other
/// process can start listening on it while a test relies on the refusal.
public final class ClosedLoopbackPort: Sendable {
    public let port: Int
    private let descriptor: Int32

    public init() throws {
        // No SO_REUSEADDR: another socket cannot share the port with this one.
        (descriptor, port) = try LoopbackPorts.bindEphemeral()
    }

    deinit { close(descriptor) }
}

/// Ports for children that cannot listen on port 0 and report the port (nginx, Caddy), and the
/// check that a child listens.
public enum LoopbackPorts: Sendable {
    public struct StartFailure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts a child on `count` ports it is told (`launch` writes them into its configuration
    /// and spawns it) and waits until the child itself listens on each. The ports are free when
    /// picked but not held, so another process can take one before the child binds it: the child
    /// then exits (EADDRINUSE) and is started again on new ports. `explain` adds the child's log
    /// to a failure.
    public static func start(
        _ name: String,
        ports count: Int,
        attempts: Int = 5,
        timeout: Duration = .seconds(60),
        explain: () -> String = { "" },
        _ launch: ([Int]) throws -> ChildProcess
    ) async throws -> (child: ChildProcess, ports: [Int]) {
        var exits: [String] = []
        for _ in 0..<attempts {
            let ports = try (0..<count).map { _ in try freePort() }
            let child = try launch(ports)
            let settled = await eventually(timeout: timeout) {
                child.hasExited || ports.allSatisfy { isListening(pid: child.pid, port: $0) }
            }
            if settled && !child.hasExited {
                if ports.allSatisfy({ isListening(pid: child.pid, port: $0, alone: true) }) { return (child, ports) }
                exits.append("shares one of \(ports) with another process")
                child.kill()
                continue
            }
            child.kill()
            guard settled else {
                throw StartFailure(description: "\(name) did not listen on \(ports) in time: \(explain())")
            }
            exits.append("exited before listening on \(ports): \(explain())")
        }
        throw StartFailure(description: "\(name) never listened: \(exits.joined(separator: "; "))")
    }

    /// A port nobody listens on right now; it is closed again, so only for `start`'s retries.
    private static func freePort() throws -> Int {
        let (descriptor, port) = try bindEphemeral()
        close(descriptor)
        return port
    }

    /// A close-on-exec TCP socket bound to 127.0.0.1 on a port the kernel picks.
    fileprivate static func bindEphemeral() throws -> (Int32, Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw StartFailure(description: "socket failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = unsafe inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = unsafe withUnsafeMutablePointer(to: &address) { pointer in
            unsafe pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                unsafe bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            let failure = StartFailure(description: "bind to 127.0.0.1:0 failed: errno \(errno)")
            close(descriptor)
            throw failure
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Whether process `pid` holds a socket listening on `port` (IPv4 or IPv6): the listener is
    /// that child's, not another process's that happens to use the port. `alone`: and no other
    /// process listens there too (SO_REUSEPORT would let both bind it and share connections).
    public static func isListening(pid: Int32, port: Int, alone: Bool = false) -> Bool {
        let inodes = listeningSocketInodes(port: port)
        guard !inodes.isEmpty else { return false }
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        let held = Set(descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)") })
        return alone ? inodes.isSubset(of: held) : !inodes.isDisjoint(with: held)
    }

    /// `socket:[inode]` of every socket listening on `port`.
    public static func listeningSocketInodes(port: Int) -> Set<String> {
        var inodes = Set<String>()
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
            for line in (readProcFile(table) ?? "").split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 9, fields[3] == "0A",
                    let portText = fields[1].split(separator: ":").last, Int(portText, radix: 16) == port
                else { continue }
                inodes.insert("socket:[\(fields[9])]")
            }
        }
        return inodes
    }

    /// The whole of a /proc file. Not `String(contentsOfFile:)`: /proc files report size 0 and
    /// Foundation then reads one page, which cuts /proc/net/tcp on a busy machine.
    public static func readProcFile(_ path: String) -> String? {
        let fd = unsafe open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = unsafe read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += buffer[..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
