import AppNativeHTTP
import AppNativeJSON
import AppNativeModels
import AppNativeProxy

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
    /// A refusal found while the reader handed over a field (a bad `context`): it stops the
    /// reading and is thrown.
    private var refusal: MediatedAnswer?

    /// Text fields are small; the file is the only large part.
    static let maxFieldBytes: UInt64 = 65_536

    /// `nil` when the request is not `multipart/form-data` with a valid boundary.
    init?(contentType: String?, maxBytes: Int) {
        let limits = MultipartLimits(maxParts: 32, maxFieldBytes: Self.maxFieldBytes, maxFileBytes: UInt64(maxBytes))
        guard let reader = MultipartFormReader(contentType: contentType, limits: limits, fileFieldName: "file") else {
            return nil
        }
        self.reader = reader
    }

    var upstreamContentType: String? { writer.contentType }

    func consume(_ chunk: ArraySlice<UInt8>) throws(MediatedAnswer) -> [UInt8] {
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
            throw Self.answer(for: error)
        }
        if let refusal { throw refusal }
        guard reader.isFinished else { throw Self.malformed }
        // Missing `file` / `device_id` (and `context` again) by the contract model itself.
        do {
            _ = try DocumentMetadata(
                textParts: reader.fields, fileName: reader.file.map { $0.preferredFilename ?? "" },
                fileContentType: reader.file?.contentType)
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
    private func forward(_ event: MultipartFormReader.Event) -> Bool {
        switch event {
        case .fileBegan(let head):
            hasFile = true
            let filename = DocumentMetadata.sanitizedFilename(head.preferredFilename ?? "")
            output.append(contentsOf: writer.beginFile(name: "file", filename: filename, contentType: head.contentType))
            if hasDeviceID { isCommitted = true }
        case .fileContent(let bytes):
            output.append(contentsOf: bytes)
        case .field(let name, let value, let isFirst):
            fieldEnded(name, value, isFirst: isFirst)
        }
        return refusal == nil
    }

    /// A text field is complete: checked by the rules of contract/routes.md §2.8, then forwarded.
    private func fieldEnded(_ name: String, _ bytes: UnsafeRawBufferPointer, isFirst: Bool) {
        switch name {
        case "device_id":
            // An empty device_id counts as missing; the model reads the first occurrence.
            guard isFirst, !bytes.isEmpty else { return }
            hasDeviceID = true
            if hasFile { isCommitted = true }
        case "user_email":
            guard !bytes.isEmpty else { return }  // empty → absent
        case "context":
            // Checked as soon as the part ends, so a bad context usually never reaches the upstream.
            let context: JSONObject?
            do {
                context = try DocumentMetadata.context(String(decoding: bytes, as: UTF8.self))
            } catch {
                refusal = Self.refusal(error)
                return
            }
            guard context != nil else { return }  // blank → absent
        default:
            break
        }
        // The bytes as sent: a field that is not UTF-8 is forwarded unchanged, never "repaired".
        output.append(contentsOf: writer.field(name: name, value: Array(bytes)))
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

    private static let tooLarge = NativeAnswers.detail(413, "Document too large")
    private static let malformed = NativeAnswers.detail(400, "There was an error parsing the body")

    private static func answer(for error: HTTPParseError) -> MediatedAnswer {
        error.status == 413 ? tooLarge : malformed
    }

    /// The contract model's refusal (its status and `detail`: 422 for missing parts or a bad context).
    static func refusal(_ error: ModelError) -> MediatedAnswer {
        .json(status: error.httpStatus, error.responseBytes())
    }

    /// A body that is not `multipart/form-data` at all: every required part is missing.
    static var notMultipart: MediatedAnswer {
        do {
            _ = try DocumentMetadata(textParts: [:], fileName: nil, fileContentType: nil)
            preconditionFailure("an upload without parts is never valid")
        } catch {
            return refusal(error)
        }
    }
}

@available(*, unavailable, message: "loop-owned")
extension DocumentUploadFilter: Sendable {}
