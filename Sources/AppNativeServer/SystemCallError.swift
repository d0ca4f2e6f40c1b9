import Glibc
internal import CAppNativeLinux

/// A failed system call: which call and its errno. Never carries request data.
public struct SystemCallError: Error, Sendable, CustomStringConvertible {
    public let call: String
    public let errno: Int32

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    // unsafe: strerror returns a NUL-terminated static string, copied at once.
    public var description: String { unsafe "\(call) failed: errno \(errno) (\(String(cString: strerror(errno))))" }

    /// Throws for -1 results, traps for EBADF/EFAULT, which mean our own bookkeeping is wrong (docs/style.md §2).
    @discardableResult
    static func check(_ result: Int32, _ call: String) throws(SystemCallError) -> Int32 {
        guard result < 0 else { return result }
        let code = appnative_errno()
        precondition(code != appnative_ebadf && code != appnative_efault, "\(call): errno \(code) means a bookkeeping bug")
        throw SystemCallError(call: call, errno: code)
    }

    static var isWouldBlock: Bool { appnative_errno() == appnative_eagain }
}
