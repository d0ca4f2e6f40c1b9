// Unsafe: the body piece is borrowed for one call; events carry index ranges into it or bytes the
// parser holds itself, and the buffers handed to the caller's closure are valid for that call only.

/// `multipart/form-data` read as a form upload while it streams: text fields, and one file part
/// of a given name (RFC 7578).
///
/// The part rules every upload route shares live here once: the first file part named
/// `fileFieldName` is the upload's file (it streams, so a later one cannot replace it); any other
/// file part (another name, or a second one of that name) is skipped; a text field is reported
/// whole when it ends, and its last occurrence is kept in `fields` (decoded as UTF-8, else as
/// Latin-1, as the Python reference's form parser decodes it) for the contract's model to judge
/// at the end.
public struct MultipartFormReader: Sendable {
    /// What the reader hands its caller, in body order.
    @safe
    public enum Event {
        // @safe: the buffers it carries are handed to the caller's closure only and are valid for that
        // call, as `withUnsafeBytes` hands its buffer; reading them is marked `unsafe` where it happens.
        /// A text field ended: its raw bytes (valid during the call) and whether it is the first
        /// field of that name.
        case field(name: String, value: UnsafeRawBufferPointer, isFirst: Bool)
        /// The file part began.
        case fileBegan(MultipartPartHead)
        /// Bytes of the file part (valid during the call).
        case fileContent(UnsafeRawBufferPointer)
    }

    private enum Part {
        case field(String)
        case file
        case ignored
    }

    private var parser: MultipartParser
    private let fileFieldName: String
    private var part: Part?
    private var fieldValue: [UInt8] = []

    /// The last occurrence of each text field (the reference's form keeps the last).
    public private(set) var fields: [String: String] = [:]
    /// The file part's head, once it began.
    public private(set) var file: MultipartPartHead?
    /// Whether the file part has ended (a delimiter followed it).
    public private(set) var isFileComplete = false
    /// Whether the close delimiter has been read.
    public private(set) var isFinished = false

    /// `nil` when `contentType` is not `multipart/form-data` with a valid boundary.
    public init?(contentType: String?, limits: MultipartLimits, fileFieldName: String) {
        guard let contentType, let parser = try? MultipartParser(contentType: contentType, limits: limits) else {
            return nil
        }
        self.parser = parser
        self.fileFieldName = fileFieldName
    }

    /// Reads one piece of the body, handing each complete field and each piece of the file to
    /// `handle`, which returns `false` to stop reading (the caller refuses the body).
    /// - Returns: `false` when `handle` stopped the reading.
    /// - Throws: the parser's error for a malformed body or a part past its limit.
    @discardableResult
    public mutating func consume(_ chunk: ArraySlice<UInt8>, _ handle: (Event) -> Bool) throws(HTTPParseError) -> Bool {
        let outcome = unsafe chunk.withUnsafeBytes { bytes -> Result<Bool, HTTPParseError> in
            do throws(HTTPParseError) {
                return unsafe .success(try consume(bytes, handle))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// Takes the next piece of the body, as `consume(_:_:)` with a slice.
    @discardableResult
    public mutating func consume(_ chunk: UnsafeRawBufferPointer, _ handle: (Event) -> Bool) throws(HTTPParseError) -> Bool {
        var offset = 0
        while true {
            let input = unsafe UnsafeRawBufferPointer(rebasing: chunk[offset...])
            let step = unsafe try parser.parse(input)
            offset += step.consumed
            guard let event = step.event else { return true }
            guard unsafe dispatch(event, in: input, handle) else { return false }
        }
    }

    /// Ends the body (after its last piece); `handle` as for `consume`.
    /// - Throws: the parser's error when the body stops before its close delimiter is complete.
    @discardableResult
    public mutating func finish(_ handle: (Event) -> Bool) throws(HTTPParseError) -> Bool {
        guard let last = try parser.finish() else { return true }
        return unsafe dispatch(last, in: UnsafeRawBufferPointer(start: nil, count: 0), handle)
    }

    private mutating func dispatch(_ event: MultipartEvent, in input: UnsafeRawBufferPointer, _ handle: (Event) -> Bool) -> Bool {
        switch event {
        case .partBegan(let head):
            if head.isFile {
                guard head.name == fileFieldName, file == nil else {
                    part = .ignored
                    return true
                }
                file = head
                part = .file
                return handle(.fileBegan(head))
            } else {
                part = .field(head.name)
                fieldValue.removeAll(keepingCapacity: true)
            }
        case .content(let range):
            return unsafe take(UnsafeRawBufferPointer(rebasing: input[range]), handle)
        case .heldContent(let bytes):
            return unsafe bytes.withUnsafeBytes { unsafe take($0, handle) }
        case .partEnded:
            defer { part = nil }
            if case .file = part { isFileComplete = true }
            guard case .field(let name) = part else { return true }
            let isFirst = fields[name] == nil
            fields[name] = FormText.decode(fieldValue)
            return unsafe fieldValue.withUnsafeBytes { unsafe handle(.field(name: name, value: $0, isFirst: isFirst)) }
        case .finished:
            isFinished = true
            return true
        }
        return true
    }

    private mutating func take(_ bytes: UnsafeRawBufferPointer, _ handle: (Event) -> Bool) -> Bool {
        switch part {
        case .file: return unsafe handle(.fileContent(bytes))
        case .field: unsafe fieldValue.append(contentsOf: bytes)
        case .ignored, nil: break
        }
        return true
    }
}

@available(*, unavailable, message: "borrows the body buffer for the duration of one call")
extension MultipartFormReader.Event: Sendable {}
