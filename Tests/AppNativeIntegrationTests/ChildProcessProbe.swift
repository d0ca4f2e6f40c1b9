import AppNativeTesting
import Foundation
import Glibc

/// A process this test started (the gateway, a peer), found by the port it listens on and read
/// through /proc: peak and current resident memory, open descriptors; and its CPU priority,
/// lowered for bulk transfers.
///
/// `GatewayProcess` has a `pid`; `LoopbackPeer` does not expose one, so a peer is found as the
/// child of this test process that holds the socket listening on its port (/proc/net/tcp gives
/// the socket's inode, /proc/<pid>/fd the owner).
struct ChildProcessProbe: Sendable {
    let pid: Int32

    static func find(listeningOn port: Int) throws -> ChildProcessProbe {
        let ourPID = getpid()
        for entry in try FileManager.default.contentsOfDirectory(atPath: "/proc") {
            guard let pid = Int32(entry), parentPID(of: pid) == ourPID else { continue }
            if LoopbackPorts.isListening(pid: pid, port: port) { return ChildProcessProbe(pid: pid) }
        }
        throw FixtureFailure(description: "no child process of \(ourPID) holds the listener on port \(port)")
    }

    private static func parentPID(of pid: Int32) -> Int32? {
        guard let stat = readProcFile("/proc/\(pid)/stat"),
            let end = stat.lastIndex(of: ")")
        else { return nil }
        // After "pid (comm)": state, ppid, ...
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }

    static func readProcFile(_ path: String) -> String? { LoopbackPorts.readProcFile(path) }

    /// A `kB` figure of /proc/<pid>/status, in KiB (`VmHWM` peak resident, `VmRSS` resident).
    func statusKiB(_ key: String) -> Int? {
        guard let status = Self.readProcFile("/proc/\(pid)/status") else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(key + ":") {
            return line.dropFirst(key.count + 1).split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) }
        }
        return nil
    }

    var peakResidentKiB: Int { statusKiB("VmHWM") ?? -1 }
    var residentKiB: Int { statusKiB("VmRSS") ?? -1 }

    /// The process's descriptors by what they are, for leak checks.
    struct Census: Sendable, CustomStringConvertible {
        /// Connections accepted on the listening port (a client's, until the gateway closes it).
        var clients: [String] = []
        /// TCP connections to the upstream port (pooled ones may stay, up to the pool's cap).
        var upstream: [String] = []
        /// Everything else: listeners, files, pipes, epoll, eventfd, timerfd, signalfd.
        var others: [String] = []

        var description: String {
            "clients \(clients.count) \(clients), upstream \(upstream.count), others \(others.count) \(others)"
        }
    }

    /// The descriptors split by `Census`; each entry reads `fd -> target`, sockets with their
    /// TCP addresses, so a failure shows what was left open and who the other end is.
    func census(listeningPort: Int, upstreamPort: Int) -> Census {
        var connections: [String: (local: Int, remote: Int, text: String)] = [:]
        for table in ["/proc/\(pid)/net/tcp", "/proc/\(pid)/net/tcp6"] {
            // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
            for line in (Self.readProcFile(table) ?? "").split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 9, fields[3] != "0A",
                    let local = fields[1].split(separator: ":").last.flatMap({ Int($0, radix: 16) }),
                    let remote = fields[2].split(separator: ":").last.flatMap({ Int($0, radix: 16) })
                else { continue }
                connections["socket:[\(fields[9])]"] = (local, remote, "\(local)->\(remote) state \(fields[3])")
            }
        }
        var census = Census()
        let descriptors = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? [])
            .sorted { (Int($0) ?? 0) < (Int($1) ?? 0) }
        for descriptor in descriptors {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)") else {
                continue  // closed while listing
            }
            guard let connection = connections[target] else {
                census.others.append("\(descriptor) -> \(target)")
                continue
            }
            let entry = "\(descriptor) -> \(target) \(connection.text)"
            if connection.local == listeningPort {
                census.clients.append(entry)
            } else if connection.remote == upstreamPort {
                census.upstream.append(entry)
            } else {
                census.others.append(entry)
            }
        }
        return census
    }

    /// The census once no client connection is left (the gateway notices a client's close
    /// asynchronously); the last one seen if that does not happen before the deadline.
    func censusWithoutClients(listeningPort: Int, upstreamPort: Int, until isSettled: (Census) -> Bool = { _ in true }) async -> Census {
        var current = census(listeningPort: listeningPort, upstreamPort: upstreamPort)
        _ = await eventually(timeout: .seconds(60), pollingEvery: .milliseconds(50)) {
            current = census(listeningPort: listeningPort, upstreamPort: upstreamPort)
            return current.clients.isEmpty && isSettled(current)
        }
        return current
    }

    /// Gives every thread of the process the lowest CPU priority (nice 19); threads it starts
    /// later inherit it from their creator. Linux applies nice per thread, hence /proc/<pid>/task.
    func lowerPriority() {
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            if let tid = id_t(task) { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), tid, 19) }
        }
    }
}
