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
        let inodes = try listeningSocketInodes(port: port)
        guard !inodes.isEmpty else { throw FixtureFailure(description: "no socket listens on 127.0.0.1:\(port)") }
        let ourPID = getpid()
        for entry in try FileManager.default.contentsOfDirectory(atPath: "/proc") {
            guard let pid = Int32(entry), parentPID(of: pid) == ourPID else { continue }
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            for descriptor in descriptors {
                if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)"),
                    inodes.contains(target)
                {
                    return ChildProcessProbe(pid: pid)
                }
            }
        }
        throw FixtureFailure(description: "no child process of \(ourPID) holds the listener on port \(port)")
    }

    /// `socket:[inode]` of every IPv4 socket listening on `port`.
    private static func listeningSocketInodes(port: Int) throws -> Set<String> {
        guard let table = readProcFile("/proc/net/tcp") else { throw FixtureFailure(description: "cannot read /proc/net/tcp") }
        var inodes = Set<String>()
        // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 9, fields[3] == "0A",
                let portText = fields[1].split(separator: ":").last, Int(portText, radix: 16) == port
            else { continue }
            inodes.insert("socket:[\(fields[9])]")
        }
        return inodes
    }

    private static func parentPID(of pid: Int32) -> Int32? {
        guard let stat = readProcFile("/proc/\(pid)/stat"),
            let end = stat.lastIndex(of: ")")
        else { return nil }
        // After "pid (comm)": state, ppid, ...
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }

    /// The whole of a /proc file. Not `String(contentsOfFile:)`: /proc files report size 0 and
    /// Foundation then reads one page, which cuts /proc/net/tcp on a busy machine.
    static func readProcFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += buffer[..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

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

    var openDescriptors: Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).count
    }

    /// The open descriptors split in two: TCP connections to `remotePort` (the pooled upstream
    /// connections a gateway may keep, up to its idle cap) and all the others (listeners, client
    /// connections, files, pipes, epoll, eventfd).
    func descriptors(connectedTo remotePort: Int) -> (connected: Int, others: Int) {
        let targets = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")
        }
        let connected = Self.connectionInodes(pid: pid, remotePort: remotePort)
        let count = targets.filter { connected.contains($0) }.count
        return (count, targets.count - count)
    }

    /// Every descriptor and what it points at (`3 -> socket:[123]`), for failure messages.
    var descriptorTargets: String {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).sorted { (Int($0) ?? 0) < (Int($1) ?? 0) }
            .map { "\($0) -> \((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) ?? "?")" }
            .joined(separator: ", ")
    }

    /// Waits (polling, at most `limit`) until the descriptors other than connections to
    /// `remotePort` are at most `count`; returns the last split seen. A client connection's
    /// close is noticed asynchronously.
    func waitForDescriptors(
        otherThanConnectionsTo remotePort: Int, atMost count: Int, limit: Duration = .seconds(10)
    ) -> (connected: Int, others: Int) {
        let deadline = ContinuousClock.now + limit
        var current = descriptors(connectedTo: remotePort)
        while current.others > count && ContinuousClock.now < deadline {
            usleep(20_000)
            current = descriptors(connectedTo: remotePort)
        }
        return current
    }

    /// `socket:[inode]` of the process's TCP sockets (IPv4 and IPv6) whose remote port is `port`.
    private static func connectionInodes(pid: Int32, remotePort port: Int) -> Set<String> {
        var inodes = Set<String>()
        for table in ["/proc/\(pid)/net/tcp", "/proc/\(pid)/net/tcp6"] {
            // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
            for line in (readProcFile(table) ?? "").split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 9, let portText = fields[2].split(separator: ":").last, Int(portText, radix: 16) == port
                else { continue }
                inodes.insert("socket:[\(fields[9])]")
            }
        }
        return inodes
    }

    /// Gives every thread of the process the lowest CPU priority (nice 19); threads it starts
    /// later inherit it from their creator. Linux applies nice per thread, hence /proc/<pid>/task.
    func lowerPriority() {
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            if let tid = id_t(task) { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), tid, 19) }
        }
    }

    /// Waits (polling, at most `limit`) until the gateway holds at most `count` descriptors;
    /// returns the last count seen. Closing a client connection is noticed asynchronously.
    func waitForDescriptors(atMost count: Int, limit: Duration = .seconds(5)) -> Int {
        let deadline = ContinuousClock.now + limit
        var current = openDescriptors
        while current > count && ContinuousClock.now < deadline {
            usleep(20_000)
            current = openDescriptors
        }
        return current
    }
}
