/// The documents route's filename rule (contract routes.md §2.8).
///
/// A client-sent filename is a path in someone else's file system; only its last component
/// may name anything here. The rule is the contract's, byte for byte, so the gateway and the
/// Python reference store the same name.
public enum DocumentFilename: Sendable {
    /// The name used when nothing usable is left.
    public static let fallback = "upload"

    /// Replaces every `\` with `/`, takes the last path component (trailing slashes ignored),
    /// and answers `"upload"` when that is empty, `.` or `..`.
    ///
    /// `../../etc/passwd` → `passwd`, `C:\temp\scan.jpg` → `scan.jpg`, `a/..` → `upload`.
    /// Control characters never get here: `MultipartParser` refuses a filename holding one.
    /// - Parameter filename: the part's `preferredFilename`, as sent.
    public static func sanitized(_ filename: String) -> String {
        let components = filename.unicodeScalars.split(
            omittingEmptySubsequences: true,
            whereSeparator: { $0 == "/" || $0 == "\\" }
        )
        guard let last = components.last else { return fallback }
        let name = String(String.UnicodeScalarView(last))
        return name == "." || name == ".." ? fallback : name
    }
}
