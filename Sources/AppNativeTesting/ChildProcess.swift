import CAppNativeLinux
import Foundation
import Glibc

// Unsafe (Glibc, tests only): socket addresses are local structs passed with their sizes; argv and
// envp are NUL-terminated arrays of strdup'ed strings freed after the spawn; buffers are borrowed
// with their counts for each call.

/// A child process started with `posix_spawn`, for peers and tools the tests run.
///
/// Not Foundation's `Process`: on Linux its `waitUntilExit` spins a run loop (a busy core on a
/// two-core machine starves the cooperative pool), and the child inherits the spawning thread's
/// blocked signals. Here the child gets default dispositions and an empty signal mask, only
/// descriptors 0, 1 and 2 (every other one is closed in the child: a socket or pipe another
/// test opened without close-on-exec must not live on in this child, or that test's peer never
/// sees it close), and `kill()` sends SIGKILL and reaps with `waitpid`.
///
/// `@unchecked Sendable` invariant: one owner at a time. A child is started and read on a
/// Dispatch thread, then handed to the test through a continuation (which orders the accesses);
/// from then on only that test touches it.
public final class ChildProcess: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    public let pid: Int32
    /// Our end of the child's standard input; open until `kill()` or `closeInput()`.
    private var inputDescriptor: Int32
    /// Our end of the child's standard output.
    private var outputDescriptor: Int32
    private var isReaped = false

    /// Starts `arguments[0]` (looked up on `PATH`) with stdin and stdout connected to pipes;
    /// stderr is inherited so a failing peer explains itself in the test log, or written to
    /// `stderrFile` when given.
    public init(_ arguments: [String], environment: [String: String]? = nil, stderrFile: String? = nil) throws {
        let input = try Self.closeOnExecPipe()
        let output: [Int32]
        do {
            output = try Self.closeOnExecPipe()
        } catch {
            close(input[0])
            close(input[1])
            throw error
        }

        var actions = unsafe posix_spawn_file_actions_t()
        unsafe posix_spawn_file_actions_init(&actions)
        defer { unsafe posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on the target descriptor, so only these two reach the child.
        unsafe posix_spawn_file_actions_adddup2(&actions, input[0], STDIN_FILENO)
        unsafe posix_spawn_file_actions_adddup2(&actions, output[1], STDOUT_FILENO)
        if let stderrFile {
            unsafe posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderrFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        // Last, after the dup2s: the pipes' original descriptors go too.
        unsafe appnative_spawn_close_from(&actions, STDERR_FILENO + 1)

        var attributes = posix_spawnattr_t()
        unsafe posix_spawnattr_init(&attributes)
        defer { unsafe posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        unsafe sigemptyset(&emptyMask)
        var allSignals = sigset_t()
        unsafe sigfillset(&allSignals)
        unsafe posix_spawnattr_setsigmask(&attributes, &emptyMask)
        unsafe posix_spawnattr_setsigdefault(&attributes, &allSignals)
        unsafe posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let environment = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let argv = unsafe arguments.map { unsafe strdup($0) } + [nil]
        let envp = unsafe environment.map { unsafe strdup($0) } + [nil]
        defer {
            for unsafe pointer in unsafe argv + envp { unsafe free(pointer) }
        }
        var child = pid_t()
        let result = unsafe posix_spawnp(&child, arguments[0], &actions, &attributes, argv, envp)
        close(input[0])
        close(output[1])
        guard result == 0 else {
            close(input[1])
            close(output[0])
            throw Failure(description: "posix_spawnp \(arguments[0]) failed: \(result)")
        }
        pid = child
        inputDescriptor = input[1]
        outputDescriptor = output[0]
    }

    deinit {
        kill()
    }

    /// `pipe2(O_CLOEXEC)` needs _GNU_SOURCE, which the Glibc module is not built with. A child
    /// spawned here between the two calls closes the ends anyway (see `init`).
    private static func closeOnExecPipe() throws -> [Int32] {
        var ends: [Int32] = [-1, -1]
        guard unsafe pipe(&ends) == 0 else { throw Failure(description: "pipe failed: \(errno)") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return ends
    }

    /// One line of the child's standard output without its newline; nil at end of file.
    public func readLine() -> String? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = unsafe read(outputDescriptor, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
    }

    /// Waits for the child to exit by itself and returns its exit status (-1 if signalled).
    public func waitForExit() -> Int32 {
        closeInput()
        let status = reap()
        return status
    }

    /// Whether the child has exited (it is reaped then); does not wait.
    public var hasExited: Bool {
        if isReaped { return true }
        var status: Int32 = 0
        let result = unsafe waitpid(pid, &status, WNOHANG)
        guard result == pid else { return false }
        releaseAfterExit()
        return true
    }

    /// Sends `signal` (SIGTERM for a graceful stop) without waiting.
    public func send(signal: Int32) {
        guard !isReaped else { return }
        _ = Glibc.kill(pid, signal)
    }

    /// SIGKILL (which nothing can block or ignore), then `waitpid`, so no zombie is left.
    public func kill() {
        guard !isReaped else { return }
        _ = Glibc.kill(pid, SIGKILL)
        _ = reap()
    }

    /// Writes `text` to the child's standard input.
    public func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = unsafe bytes.withUnsafeMutableBytes { unsafe Glibc.write(inputDescriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// Everything the child writes to standard output until it closes it.
    public func readToEnd() -> String {
        var output = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = unsafe read(outputDescriptor, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            output.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Closes the child's standard input (end of input for it).
    public func closeInput() {
        if inputDescriptor >= 0 {
            close(inputDescriptor)
            inputDescriptor = -1
        }
    }

    private func reap() -> Int32 {
        guard !isReaped else { return -1 }
        var status: Int32 = 0
        while unsafe waitpid(pid, &status, 0) < 0, errno == EINTR {}
        releaseAfterExit()
        // WIFEXITED / WEXITSTATUS are macros Swift does not import.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : -1
    }

    private func releaseAfterExit() {
        isReaped = true
        closeInput()
        if outputDescriptor >= 0 {
            close(outputDescriptor)
            outputDescriptor = -1
        }
    }
}
