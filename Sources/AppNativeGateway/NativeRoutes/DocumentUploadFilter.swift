import AppNativeHTTP
import AppNativeJSON
import AppNativeModels
import AppNativeProxy
import AppNativeRoutes

/// The document upload (contract/routes.md §2.8) while it streams: parsed part by part, the filename
/// sanitised, `context` checked, the size capped, and re-encoded as `multipart/form-data` with the
/// same field names for the upstream.
///
/// Nothing reaches the upstream before the upload has a non-empty `device_id` and its `file` part
/// has begun, so most refusals (no device, bad `context`) cost the upstream nothing. From then on
/// the file streams through with bounded memory; a refusal after that point (a `context` or a
/// size problem found later) drops the upstream connection mid-body, so the upstream's parser never
/// sees a complete upload and never calls back. Until the commit, bytes are held, bounded by
/// `maxBytes` (an app that sends the file before `device_id`).
final class DocumentUploadFilter: RequestBodyFilter {
    private var reader: MultipartFormReader
    private var writer = MultipartWriter()
    /// Re-encoded bytes not yet released to the upstream.
    private var output: [UInt8] = []
    private var isCommitted = false
    private var hasDeviceID = false
    private var hasFile = false
    /// A refusal found while the reader handed over a part: it stops the reading and is thrown.
    private var refusal: MediatedAnswer?
    /// The refusal the latest `context` part calls for (the reference reads the last one): it
    /// becomes the refusal when the file begins, so a bad `context` before the file is answered
    /// before any of the upload reaches the upstream.
    private var contextRefusal: MediatedAnswer?
    /// The start of the body until it reaches the first delimiter: the reference's parser takes
    /// only CR and LF before it (no preamble).
    private var opening: [UInt8]
    private var matchedOpening = 0
    private var isOpeningChecked = false

    /// The filter for an upload, or the refusal for its Content-Type, as the reference answers
    /// it: 422 (every required part missing) when it is not `multipart/form-data`, 400 when the
    /// boundary is missing or unusable.
    static func make(contentType: String?, maxBytes: Int) -> Result<DocumentUploadFilter, MediatedAnswer> {
        guard let contentType, Self.isFormData(contentType) else { return .failure(notMultipart) }
        let boundary: MultipartBoundary
        do throws(HTTPParseError) {
            boundary = try MultipartBoundary(contentType: contentType)
        } catch {
            return .failure(error.code == .missingBoundary ? missingBoundary : malformed)
        }
        // The limits are ``DocumentUploadForm``'s, the ones every server of the routes applies.
        guard let reader = DocumentUploadForm.reader(contentType: contentType, maxFileBytes: UInt64(maxBytes)) else {
            return .failure(malformed)
        }
        return .success(DocumentUploadFilter(reader: reader, boundary: boundary))
    }

    private init(reader: MultipartFormReader, boundary: MultipartBoundary) {
        self.reader = reader
        opening = Array("--\(boundary.value)".utf8)
    }

    /// Starlette's test: the media type before any `;`, lower-cased and trimmed, is
    /// `multipart/form-data` (anything else is read as no form at all).
    static func isFormData(_ contentType: String) -> Bool {
        NativeContract.mediaType(of: contentType) == "multipart/form-data"
    }

    var upstreamContentType: String? { writer.contentType }

    func consume(_ chunk: ArraySlice<UInt8>) throws(MediatedAnswer) -> [UInt8] {
        try checkOpening(chunk)
        do throws(HTTPParseError) {
            try reader.consume(chunk) { forward($0) }
        } catch {
            throw Self.answer(for: error)
        }
        if let refusal { throw refusal }
        return release()
    }

    func finish() throws(MediatedAnswer) -> [UInt8] {
        do throws(HTTPParseError) {
            try reader.finish { forward($0) }
        } catch {
            // A body that stops early is what the reference's parser read of it: the parts that
            // ended. The model decides (a file that never ended is missing).
            guard error.code == .truncated, isOpeningChecked else { throw Self.answer(for: error) }
        }
        if let refusal { throw refusal }
        // Missing `file` / `device_id` and the last `context` by the contract model itself.
        let file = reader.isFinished || reader.isFileComplete ? reader.file : nil
        do {
            _ = try DocumentMetadata(
                textParts: reader.fields, fileName: file.map { $0.preferredFilename ?? "" },
                fileContentType: file?.contentType)
        } catch {
            throw Self.refusal(error)
        }
        output.append(contentsOf: writer.finish())
        isCommitted = true
        return release()
    }

    // MARK: Events

    /// Re-encodes what the reader hands over; commits once the upload has a `device_id` and its
    /// file has begun. `false` once the upload is refused.
    // Unsafe: the event's buffers are valid for this call only; they are copied into `output`.
    private func forward(_ event: MultipartFormReader.Event) -> Bool {
        switch event {
        case .fileBegan(let head):
            if let contextRefusal {
                refusal = contextRefusal
                return false
            }
            hasFile = true
            let filename = DocumentMetadata.sanitizedFilename(head.preferredFilename ?? "")
            output.append(contentsOf: writer.beginFile(name: DocumentUploadForm.fileFieldName, filename: filename, contentType: head.contentType))
            if hasDeviceID { isCommitted = true }
        case .fileContent(let bytes):
            unsafe output.append(contentsOf: bytes)
        case .field(let name, let value, _):
            unsafe fieldEnded(name, value)
        }
        return refusal == nil
    }

    /// A text field is complete: checked by the rules of contract/routes.md §2.8, then forwarded.
    /// Every occurrence of a field is forwarded: a repeated field arrives repeated, and the last
    /// one is the one the reference (and the model here) reads.
    private func fieldEnded(_ name: String, _ bytes: UnsafeRawBufferPointer) {
        switch name {
        case "device_id":
            // An empty device_id counts as missing.
            guard unsafe !bytes.isEmpty else { return }
            hasDeviceID = true
            if hasFile { isCommitted = true }
        case "user_email":
            guard unsafe !bytes.isEmpty else { return }  // empty → absent
        case "context":
            // Checked as soon as the part ends, so a bad context before the file never reaches
            // the upstream; a later context part replaces the verdict, as it replaces the value.
            let context: JSONObject?
            do {
                context = unsafe try DocumentMetadata.context(String(decoding: bytes, as: UTF8.self))
                contextRefusal = nil
            } catch {
                contextRefusal = Self.refusal(error)
                return
            }
            guard context != nil else { return }  // blank → absent
        default:
            break
        }
        // The bytes as sent: a field that is not UTF-8 is forwarded unchanged, never "repaired".
        unsafe output.append(contentsOf: writer.field(name: name, value: Array(bytes)))
    }

    private func release() -> [UInt8] {
        guard isCommitted, !output.isEmpty else { return [] }
        // Handed over whole: keeping the capacity would allocate a second buffer of that size
        // right away (the returned array still shares this one).
        var released: [UInt8] = []
        swap(&released, &output)
        return released
    }

    // MARK: Answers

    /// Bytes before the first delimiter other than CR and LF: the reference's parser refuses
    /// them (RFC 2046 would allow a preamble).
    private func checkOpening(_ chunk: ArraySlice<UInt8>) throws(MediatedAnswer) {
        guard !isOpeningChecked else { return }
        for byte in chunk {
            if byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n"), matchedOpening == 0 { continue }
            if matchedOpening == opening.count {
                // The delimiter ends with CR (a part follows) or `-` (the close delimiter): no
                // transport padding, no bare LF.
                guard byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "-") else { throw Self.malformed }
                isOpeningChecked = true
                return
            }
            guard opening[matchedOpening] == byte else { throw Self.malformed }
            matchedOpening += 1
        }
    }

    // The reference's answers (Starlette's MultiPartException messages, FastAPI's 400).
    private static let tooLarge = NativeAnswers.detail(413, "Document too large")
    private static let malformed = NativeAnswers.detail(400, "Invalid multipart data.")
    private static let missingBoundary = NativeAnswers.detail(400, "Missing boundary in multipart.")
    private static let missingName = NativeAnswers.detail(400, #"The Content-Disposition header field "name" must be provided."#)

    private static func answer(for error: HTTPParseError) -> MediatedAnswer {
        if error.status == 413 { return tooLarge }
        return error.code == .missingPartName ? missingName : malformed
    }

    /// The contract model's refusal (its status and `detail`: 422 for missing parts or a bad context).
    static func refusal(_ error: ModelError) -> MediatedAnswer {
        .json(status: error.httpStatus, error.responseBytes())
    }

    /// A body that is not `multipart/form-data` at all: every required part is missing.
    static var notMultipart: MediatedAnswer {
        refusal(DocumentMetadata.missingRequiredParts)
    }
}

@available(*, unavailable, message: "loop-owned")
extension DocumentUploadFilter: Sendable {}
