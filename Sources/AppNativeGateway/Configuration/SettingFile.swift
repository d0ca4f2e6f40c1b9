import Foundation
import Glibc

// Unsafe: stat(2) writes one struct stat into a local one; strerror returns a NUL-terminated string.

/// A setting's value kept in a file (`SESSION_SECRET_FILE=/run/secrets/session`), as Docker and
/// Kubernetes mount secrets.
///
/// The file is opened by its path at every read, so a Kubernetes rotation (the `..data` symlink
/// swapped to a new directory) or a file replaced by rename is seen at the next read; no
/// descriptor is kept. Its content is the value exactly, except one trailing line ending (`\n`
/// or `\r\n`), which secret files usually end with.
public struct SettingFile: Sendable, Hashable {
    /// The `…_FILE` setting that names the file.
    public let variable: String
    public let path: String

    /// No secret is anywhere near this; a larger file is the wrong file.
    public static let maxBytes = 1 << 20

    public init(variable: String, path: String) {
        self.variable = variable
        self.path = path
    }

    /// Why a file cannot be used; names the setting and the path, never the content.
    public struct Unusable: Error, Sendable, Equatable, CustomStringConvertible {
        public let variable: String
        public let path: String
        public let reason: String

        public var description: String { "\(path): \(reason)" }
    }

    /// The value the file holds.
    ///
    /// - Throws: `Unusable` when the file cannot be opened or read, is not a regular file, is
    ///   larger than `maxBytes`, is not UTF-8 text, or holds nothing but a line ending.
    public func read() throws(Unusable) -> String {
        // stat follows symlinks: the target in force now is what is checked and then read.
        var info = stat()
        guard unsafe stat(path, &info) == 0 else { throw unusable(unsafe "cannot be read (\(String(cString: strerror(errno))))") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw unusable("is not a regular file") }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw unusable(unsafe "cannot be read (\(String(cString: strerror(errno))))")
        }
        defer { try? handle.close() }
        let data: Data?
        do {
            data = try handle.read(upToCount: Self.maxBytes + 1)
        } catch {
            throw unusable("cannot be read")
        }
        let bytes = data.map { [UInt8]($0) } ?? []
        guard bytes.count <= Self.maxBytes else { throw unusable("is larger than \(Self.maxBytes) bytes") }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw unusable("is not UTF-8 text") }
        let value = Self.value(of: text)
        guard !value.isEmpty else { throw unusable("is empty") }
        return value
    }

    /// The text without one trailing line ending (`\n` or `\r\n`), otherwise exact.
    static func value(of text: String) -> String {
        var utf8 = Substring(text).utf8
        guard utf8.last == UInt8(ascii: "\n") else { return text }
        utf8.removeLast()
        if utf8.last == UInt8(ascii: "\r") { utf8.removeLast() }
        return String(Substring(utf8))
    }

    private func unusable(_ reason: String) -> Unusable {
        Unusable(variable: variable, path: path, reason: reason)
    }
}
