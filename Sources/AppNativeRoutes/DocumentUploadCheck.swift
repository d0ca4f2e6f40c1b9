package import AppNativeHTTP
import AppNativeJSON
package import AppNativeModels

/// The rules of a `POST {p}/documents` body (contract/routes.md §2.8) while it streams, written
/// once for every server of the routes: ``NativeRoutes`` keeps what it hands over for the host's
/// callback, and the gateway's `DocumentUploadFilter` re-encodes it for the upstream.
///
/// The rules, in the order they are met:
/// - no body at all is a form without parts (422, `file` and `device_id` missing), and so is a
///   `Content-Type` that is not `multipart/form-data`; a missing boundary is 400 `Missing boundary
///   in multipart.`, an unusable one 400 `Invalid multipart data.` (Starlette's messages);
/// - the body starts with its first delimiter (CR and LF may come before it, as the reference's
///   parser takes them; no other preamble), followed by CR or `-`;
/// - at most ``maxParts`` parts and ``maxFieldBytes`` per text field, and the file at most the
///   server's `max_bytes`: one byte more is 413 `Document too large` as soon as it arrives,
///   because the file streams and is never held past the cap;
/// - the first file part named `file` is the upload (``MultipartFormReader``); a `context` is
///   judged when its part ends and a bad one refuses the upload when the file begins, so nothing
///   of the file is handed over after a `context` the contract refuses;
/// - at the end, the contract's model judges the parts (missing `file` or `device_id`, the last
///   `context`); a body cut short counts the parts that ended, as the reference's parser does.
package struct DocumentUploadCheck {
    /// Most parts in one upload (413 past it). The contract has eight fields and one file; the
    /// cap leaves room for repeated fields while bounding the work and the per-part state one
    /// upload can cost. The reference's own caps (1000 fields and 1000 files) are far above what
    /// the app sends (docs/migration.md).
    package static let maxParts = 64
    /// Largest text field: `context` is the longest the app sends.
    package static let maxFieldBytes: UInt64 = 65_536
    /// The part whose content is the upload.
    package static let fileFieldName = "file"
    /// The text field that names the device (required, an empty one counts as missing).
    package static let deviceIDFieldName = "device_id"

    /// What the check hands its server, in body order.
    @safe
    package enum Event {
        // @safe: the buffers it carries are the multipart reader's, valid for the call that hands
        // the event over (as `withUnsafeBytes` hands its buffer); reading them is marked `unsafe`
        // where it happens, and no handler keeps them past the call.
        /// A text field the upload carries: its raw bytes (valid during the call). An empty
        /// `device_id` or `user_email` and a blank or refused `context` are not handed over: they
        /// count as absent.
        case field(name: String, value: UnsafeRawBufferPointer)
        /// The file part began; `filename` is sanitised (``DocumentMetadata/sanitizedFilename(_:)``).
        case fileBegan(filename: String, contentType: String?)
        /// Bytes of the file (valid during the call).
        case fileContent(UnsafeRawBufferPointer)
    }

    /// How far the body's start has matched its first delimiter.
    private enum Opening {
        /// This many bytes of `--boundary` matched.
        case matching(Int)
        /// The first delimiter and the byte after it are as the reference's parser wants them.
        case checked
    }

    /// What the fields met so far call for: kept apart from the reader so that the reader's
    /// callback may change it while the reader runs.
    private struct Verdict {
        /// The refusal the latest `context` part calls for (the reference reads the last one).
        var context: CompleteResponse?
        /// The refusal that stopped the reading.
        var refusal: CompleteResponse?

        /// Applies the field rules to `event` and hands it on; `false` once the upload is refused.
        mutating func take(_ event: MultipartFormReader.Event, _ handle: (Event) -> Void) -> Bool {
            switch event {
            case .fileBegan(let head):
                if let context {
                    refusal = context
                    return false
                }
                let filename = DocumentMetadata.sanitizedFilename(head.preferredFilename ?? "")
                handle(.fileBegan(filename: filename, contentType: head.contentType))
            case .fileContent(let bytes):
                unsafe handle(.fileContent(bytes))
            case .field(let name, let bytes, _):
                guard unsafe carries(name, bytes) else { return true }
                // The bytes as sent: a field that is not UTF-8 is handed over unchanged, never "repaired".
                unsafe handle(.field(name: name, value: bytes))
            }
            return true
        }

        /// Whether a complete text field counts: an empty `device_id` or `user_email` is absent; a
        /// `context` is judged now, so that a bad one before the file refuses the upload before any
        /// of it is handed over, and a later `context` replaces the verdict as it replaces the value.
        private mutating func carries(_ name: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
            switch name {
            case DocumentUploadCheck.deviceIDFieldName, "user_email":
                return unsafe !bytes.isEmpty
            case "context":
                do {
                    let parsed = unsafe try DocumentMetadata.context(String(decoding: bytes, as: UTF8.self))
                    context = nil
                    return parsed != nil
                } catch {
                    context = .refusal(error)
                    return false
                }
            default:
                return true
            }
        }
    }

    private var reader: MultipartFormReader
    private let delimiter: [UInt8]
    private var opening = Opening.matching(0)
    private var verdict = Verdict()

    /// The check of an upload whose head is `contentType` and whose file may have `maxFileBytes`,
    /// or the refusal the head alone calls for.
    ///
    /// - Parameter hasBody: whether the request has a body at all; without one every required
    ///   part is missing, whatever the `Content-Type` says.
    package static func start(contentType: String?, hasBody: Bool, maxFileBytes: Int) -> Result<DocumentUploadCheck, CompleteResponse> {
        guard hasBody, let contentType, MediaType.of(contentType) == "multipart/form-data" else { return .failure(notMultipart) }
        let boundary: MultipartBoundary
        do throws(HTTPParseError) {
            boundary = try MultipartBoundary(contentType: contentType)
        } catch {
            return .failure(error.code == .missingBoundary ? missingBoundary : malformed)
        }
        let limits = MultipartLimits(maxParts: maxParts, maxFieldBytes: maxFieldBytes, maxFileBytes: UInt64(max(0, maxFileBytes)))
        guard let reader = MultipartFormReader(contentType: contentType, limits: limits, fileFieldName: fileFieldName) else {
            return .failure(malformed)
        }
        return .success(DocumentUploadCheck(reader: reader, delimiter: Array("--\(boundary.value)".utf8)))
    }

    private init(reader: MultipartFormReader, delimiter: [UInt8]) {
        self.reader = reader
        self.delimiter = delimiter
    }

    /// Reads the next piece of the body, handing what it carries to `handle`.
    /// - Throws: the refusal of the upload; reading stops there.
    package mutating func consume(_ chunk: ArraySlice<UInt8>, _ handle: (Event) -> Void) throws(CompleteResponse) {
        try checkOpening(chunk)
        var verdict = self.verdict
        defer { self.verdict = verdict }
        do throws(HTTPParseError) {
            try reader.consume(chunk) { verdict.take($0, handle) }
        } catch {
            throw Self.refusal(error)
        }
        if let refusal = verdict.refusal { throw refusal }
    }

    /// Ends the body (after its last piece): the upload's metadata, or its refusal.
    package mutating func finish(_ handle: (Event) -> Void) throws(CompleteResponse) -> DocumentMetadata {
        var verdict = self.verdict
        defer { self.verdict = verdict }
        do throws(HTTPParseError) {
            try reader.finish { verdict.take($0, handle) }
        } catch {
            // A body that stops early is what the reference's parser read of it: the parts that
            // ended. The model decides (a file that never ended is missing).
            guard error.code == .truncated, case .checked = opening else { throw Self.refusal(error) }
        }
        if let refusal = verdict.refusal { throw refusal }
        let file = reader.isFinished || reader.isFileComplete ? reader.file : nil
        do throws(ModelError) {
            return try DocumentMetadata(
                textParts: reader.fields, fileName: file.map { $0.preferredFilename ?? "" }, fileContentType: file?.contentType)
        } catch {
            throw .refusal(error)
        }
    }

    /// Bytes before the first delimiter other than CR and LF: the reference's parser refuses
    /// them (RFC 2046 would allow a preamble).
    private mutating func checkOpening(_ chunk: ArraySlice<UInt8>) throws(CompleteResponse) {
        guard case .matching(var matched) = opening else { return }
        defer { if case .matching = opening { opening = .matching(matched) } }
        for byte in chunk {
            if byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n"), matched == 0 { continue }
            if matched == delimiter.count {
                // The delimiter ends with CR (a part follows) or `-` (the close delimiter): no
                // transport padding, no bare LF.
                guard byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "-") else { throw Self.malformed }
                opening = .checked
                return
            }
            guard delimiter[matched] == byte else { throw Self.malformed }
            matched += 1
        }
    }

    // MARK: Refusals (Starlette's MultiPartException messages, FastAPI's 400)

    /// A form without parts: `file` and `device_id` missing.
    package static let notMultipart = CompleteResponse.refusal(DocumentMetadata.missingRequiredParts)
    private static let malformed = CompleteResponse.detail(400, "Invalid multipart data.")
    private static let missingBoundary = CompleteResponse.detail(400, "Missing boundary in multipart.")
    private static let missingName = CompleteResponse.detail(400, #"The Content-Disposition header field "name" must be provided."#)

    private static func refusal(_ error: HTTPParseError) -> CompleteResponse {
        if error.status == 413 { return .documentTooLarge }
        return error.code == .missingPartName ? missingName : malformed
    }
}

@available(*, unavailable, message: "owned by one request")
extension DocumentUploadCheck: Sendable {}
