// Unsafe: a JSONReader is made only inside the document's `withUnsafeBufferPointer` and dropped
// before it returns; member offsets it records are read back through the document's own storage.

/// A strict RFC 8259 JSON parser for untrusted input.
///
/// It accepts exactly one JSON text (RFC 8259 §2) in UTF-8 (§8.1) and refuses what lenient
/// parsers let through and an attacker could use to make two readers disagree on one document:
/// duplicate member names compared after unescaping (RFC 7493 §2.3), lone surrogate escapes
/// (RFC 7493 §2.1), ill-formed UTF-8, a byte order mark, numbers outside the §6 grammar, raw
/// control characters in strings, and anything after the value. Nesting depth and input size are
/// bounded before any work is done, and nesting is tracked on the heap, so a hostile document
/// cannot overflow the stack.
///
/// Numbers are kept as written (``JSONNumber``): huge or very precise values parse, and the
/// caller decides what an out-of-range reading means.
public struct JSONParser: Sendable {
    /// Limits and the one tolerance the parser offers.
    public struct Options: Sendable {
        /// How many arrays and objects may nest (a scalar at the top is depth 0, `[]` is depth 1).
        ///
        /// At most ``JSONParser/maxSupportedDepth``: a parsed value is released recursively and
        /// ``JSONSerializer`` recurses, so the bound also protects the stack after parsing.
        public var maxDepth: Int = 64
        /// The largest input accepted, in bytes; larger input fails before any byte is read.
        public var maxBytes: Int = 1 << 24
        /// Whether a `\u` escape of a surrogate outside a high-low pair becomes U+FFFD instead of
        /// failing with ``JSONError/Code/loneSurrogate``.
        public var allowsLoneSurrogates: Bool = false

        /// The defaults: depth 64, 16 MiB, lone surrogates refused.
        public init() {}
    }

    /// The largest ``Options/maxDepth`` a parser can be created with.
    public static let maxSupportedDepth = 1024

    /// The limits this parser applies.
    public let options: Options

    /// Creates a parser.
    ///
    /// - Parameter options: limits; `maxDepth` must lie in `0...maxSupportedDepth` and
    ///   `maxBytes` must not be negative.
    public init(options: Options = .init()) {
        precondition((0...Self.maxSupportedDepth).contains(options.maxDepth), "JSONParser: maxDepth out of range")
        precondition(options.maxBytes >= 0, "JSONParser: negative maxBytes")
        self.options = options
    }

    /// Parses one JSON text (RFC 8259 §2) from UTF-8 bytes.
    ///
    /// - Parameter bytes: the document; only read during the call.
    /// - Returns: the top-level value, which may be a scalar (RFC 8259 §2 allows any value).
    /// - Throws: ``JSONError``: `.tooLarge` before reading anything; `.invalidUTF8` whenever the
    ///   input holds ill-formed UTF-8 anywhere; otherwise the first problem in reading order.
    public func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONError) -> JSONValue {
        guard bytes.count <= options.maxBytes else {
            throw JSONError(.tooLarge, "the input is longer than maxBytes", offset: options.maxBytes)
        }
        guard let base = bytes.baseAddress, unsafe !bytes.isEmpty else {
            throw JSONError(.empty, "the input is empty", offset: 0)
        }
        // Input bytes are only ever read as UInt8, which every memory binding allows.
        var reader = unsafe JSONReader(
            base: base.assumingMemoryBound(to: UInt8.self),
            end: bytes.count,
            maxDepth: options.maxDepth,
            allowsLoneSurrogates: options.allowsLoneSurrogates
        )
        do {
            return try reader.readDocument()
        } catch {
            throw reader.preferringEncodingError(over: error)
        }
    }

    /// Parses one JSON text (RFC 8259 §2) from UTF-8 bytes.
    ///
    /// - Throws: ``JSONError``, as the `UnsafeRawBufferPointer` overload does.
    public func parse(_ bytes: [UInt8]) throws(JSONError) -> JSONValue {
        let result = unsafe bytes.withUnsafeBytes { raw in
            Result { () throws(JSONError) -> JSONValue in unsafe try parse(raw) }
        }
        return try result.get()
    }

    /// Parses one JSON text (RFC 8259 §2) from a string's UTF-8 form.
    ///
    /// A Swift `String` is always well-formed, so ``JSONError/Code/invalidUTF8`` cannot occur;
    /// a leading U+FEFF is still refused as a byte order mark.
    ///
    /// - Throws: ``JSONError``, as the `UnsafeRawBufferPointer` overload does.
    public func parse(_ text: String) throws(JSONError) -> JSONValue {
        guard text.utf8.count <= options.maxBytes else {
            throw JSONError(.tooLarge, "the input is longer than maxBytes", offset: options.maxBytes)
        }
        var text = text
        let result = text.withUTF8 { buffer in
            Result { () throws(JSONError) -> JSONValue in unsafe try parse(UnsafeRawBufferPointer(buffer)) }
        }
        return try result.get()
    }
}
