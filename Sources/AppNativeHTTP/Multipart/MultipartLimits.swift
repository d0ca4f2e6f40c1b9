/// Size limits `MultipartParser` enforces before it buffers or hands on a byte past them.
///
/// Memory does not grow with the body: the parser holds at most one part header line and a
/// delimiter's worth of lookbehind. The content limits bound what a consumer collects.
public struct MultipartLimits: Sendable, Hashable {
    /// Most parts in one body; one more gives `.tooManyParts` (413).
    public var maxParts: Int
    /// Longest part header line, without its CRLF; longer gives `.partHeaderTooLarge` (413).
    public var maxHeaderLineBytes: Int
    /// Most header lines in one part; one more gives `.tooManyPartHeaders` (413).
    public var maxHeaderCount: Int
    /// Largest content of a part without a filename (a text field, which consumers buffer);
    /// larger gives `.partTooLarge` (413).
    public var maxFieldBytes: UInt64
    /// Largest content of a file part; larger gives `.partTooLarge` (413). Exactly this many
    /// bytes pass (contract/routes.md §2.8: 25 MiB by default). Nil means unlimited: a route that must
    /// judge a later field before the size (contract/routes.md §2.8 checks `context` first) passes nil,
    /// stops keeping content past its own limit, and reads on to the end.
    public var maxFileBytes: UInt64?

    /// - Parameters:
    ///   - maxParts: most parts, at least 1.
    ///   - maxHeaderLineBytes: longest part header line, at least 64.
    ///   - maxHeaderCount: most header lines per part, at least 1.
    ///   - maxFieldBytes: largest text field.
    ///   - maxFileBytes: largest file, or nil for no limit.
    public init(
        maxParts: Int = 100,
        maxHeaderLineBytes: Int = 8192,
        maxHeaderCount: Int = 32,
        maxFieldBytes: UInt64 = 65536,
        maxFileBytes: UInt64? = 26_214_400
    ) {
        precondition(maxParts >= 1 && maxHeaderCount >= 1, "limits must admit one part with one header")
        precondition(maxHeaderLineBytes >= 64, "a header line limit below 64 bytes rejects ordinary parts")
        self.maxParts = maxParts
        self.maxHeaderLineBytes = maxHeaderLineBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxFieldBytes = maxFieldBytes
        self.maxFileBytes = maxFileBytes
    }
}
