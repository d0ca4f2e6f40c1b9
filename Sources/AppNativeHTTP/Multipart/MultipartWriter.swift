/// A streaming `multipart/form-data` encoder (RFC 7578, WHATWG HTML "multipart/form-data
/// encoding algorithm"), for forwarding an upload to an upstream without holding the file.
///
/// Each call returns the wire bytes to send next; file content is sent between `beginFile` and
/// the next call exactly as it arrives (no transformation is needed, so no copy). The output is
/// what browsers send, which every server-side parser reads (python-multipart, Werkzeug, Go's
/// mime/multipart): CRLF line ends, `Content-Disposition: form-data; name="…"; filename="…"`,
/// and a Content-Type on file parts.
///
/// Names and filenames are escaped so that no value can end a quoted-string or a header line:
/// `"` → `\"` and `\` → `\\` (quoted-pairs, which the Python reference's parser reads back to the
/// original), CR → `%0D`, LF → `%0A` (WHATWG). Nothing else is changed (raw UTF-8 stays raw). The boundary is random (`MultipartBoundary.random()`), so file content containing the
/// delimiter by chance is not a practical concern.
public struct MultipartWriter: Sendable {
    /// The boundary the body uses.
    public let boundary: MultipartBoundary
    private var hasPart = false
    private var isFinished = false

    /// - Parameter boundary: the boundary; by default a fresh random one.
    public init(boundary: MultipartBoundary = .random()) {
        self.boundary = boundary
    }

    /// The Content-Type field value to send with the body.
    public var contentType: String {
        let value = boundary.value
        // bchars include space and a few tspecials; those need the quoted-string form.
        let isToken = value.utf8.allSatisfy(ByteClass.isTchar)
        return "multipart/form-data; boundary=" + (isToken ? value : "\"" + value + "\"")
    }

    /// One complete text field part.
    /// - Parameters:
    ///   - name: the field name.
    ///   - value: the field value, sent as it is.
    /// - Returns: the bytes to send.
    public mutating func field(name: String, value: String) -> [UInt8] {
        var bytes = partHead(name: name, filename: nil, contentType: nil)
        bytes.append(contentsOf: value.utf8)
        return bytes
    }

    /// One complete field part whose value is bytes, such as a field read by `MultipartParser`
    /// and forwarded unchanged.
    /// - Parameters:
    ///   - name: the field name.
    ///   - value: the field content, sent as it is.
    /// - Returns: the bytes to send.
    public mutating func field(name: String, value: [UInt8]) -> [UInt8] {
        partHead(name: name, filename: nil, contentType: nil) + value
    }

    /// Opens a file part; send its content as it arrives, then call the next method.
    /// - Parameters:
    ///   - name: the field name.
    ///   - filename: the filename to declare (the sanitised one, when forwarding an upload).
    ///   - contentType: the part's media type; nil, or a value with a control or non-ASCII
    ///     character, is sent as `application/octet-stream` (RFC 7578 §4.4).
    /// - Returns: the bytes to send before the content.
    public mutating func beginFile(name: String, filename: String, contentType: String?) -> [UInt8] {
        let isSafe = contentType.map { !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } } ?? false
        return partHead(name: name, filename: filename, contentType: isSafe ? contentType : "application/octet-stream")
    }

    /// The close delimiter; the body is complete after it.
    /// - Returns: the bytes to send last.
    public mutating func finish() -> [UInt8] {
        precondition(!isFinished, "MultipartWriter.finish called twice")
        isFinished = true
        var bytes: [UInt8] = hasPart ? [ASCII.cr, ASCII.lf] : []
        bytes.append(contentsOf: "--".utf8)
        bytes.append(contentsOf: boundary.value.utf8)
        bytes.append(contentsOf: "--\r\n".utf8)
        return bytes
    }

    private mutating func partHead(name: String, filename: String?, contentType: String?) -> [UInt8] {
        precondition(!isFinished, "MultipartWriter used after finish")
        // The CRLF that ends the previous part's content belongs to this delimiter (RFC 2046 §5.1.1).
        var bytes: [UInt8] = hasPart ? [ASCII.cr, ASCII.lf] : []
        hasPart = true
        bytes.append(contentsOf: "--".utf8)
        bytes.append(contentsOf: boundary.value.utf8)
        bytes.append(contentsOf: "\r\nContent-Disposition: form-data; name=\"".utf8)
        Self.appendEscaped(name, to: &bytes)
        bytes.append(ASCII.dquote)
        if let filename {
            bytes.append(contentsOf: "; filename=\"".utf8)
            Self.appendEscaped(filename, to: &bytes)
            bytes.append(ASCII.dquote)
        }
        if let contentType {
            bytes.append(contentsOf: "\r\nContent-Type: ".utf8)
            bytes.append(contentsOf: contentType.utf8)
        }
        bytes.append(contentsOf: "\r\n\r\n".utf8)
        return bytes
    }

    /// `"` and `\` as quoted-pairs (RFC 9110 §5.6.4), which python-multipart and other parsers
    /// unescape, so the backend reads the name as the app sent it; CR and LF, which no header
    /// line can hold, as WHATWG's `%0D` and `%0A` (HTML §4.10.21.8).
    static func appendEscaped(_ text: String, to bytes: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case ASCII.lf: bytes.append(contentsOf: "%0A".utf8)
            case ASCII.cr: bytes.append(contentsOf: "%0D".utf8)
            case ASCII.dquote: bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            default: bytes.append(byte)
            }
        }
    }
}
