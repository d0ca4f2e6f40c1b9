import AppNativeHTTP
import AppNativeJSON
import AppNativeModels
import AppNativeProxy

/// The document upload (routes.md §2.8) while it streams: parsed part by part, the filename
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
    private var parser: MultipartParser
    private var writer = MultipartWriter()
    private let maxBytes: Int
    /// Re-encoded bytes not yet released to the upstream.
    private var output: [UInt8] = []
    private var isCommitted = false
    private var isFinished = false

    private enum Part {
        case field(String)
        case file
        /// A file part under another name: not part of the contract, not forwarded.
        case ignored
    }

    private var part: Part?
    private var fieldValue: [UInt8] = []
    private var hasDeviceID = false
    private var hasFile = false
    /// Text parts by name (first occurrence; bounded by the part count and field size limits)
    /// and the file part's head: what the contract's model judges at the end.
    private var textParts: [String: String] = [:]
    private var fileName: String?
    private var fileContentType: String?

    /// Text fields are small; the file is the only large part.
    static let maxFieldBytes: UInt64 = 65_536

    /// `nil` when the request is not `multipart/form-data` with a valid boundary.
    init?(contentType: String?, maxBytes: Int) {
        guard let contentType else { return nil }
        let limits = MultipartLimits(maxParts: 32, maxFieldBytes: Self.maxFieldBytes, maxFileBytes: UInt64(maxBytes))
        guard let parser = try? MultipartParser(contentType: contentType, limits: limits) else { return nil }
        self.parser = parser
        self.maxBytes = maxBytes
    }

    var upstreamContentType: String? { writer.contentType }

    func consume(_ chunk: UnsafeRawBufferPointer) throws(MediatedAnswer) -> [UInt8] {
        var offset = 0
        while true {
            let input = UnsafeRawBufferPointer(rebasing: chunk[offset...])
            let step: (consumed: Int, event: MultipartEvent?)
            do { step = try parser.parse(input) } catch { throw Self.answer(for: error) }
            offset += step.consumed
            guard let event = step.event else { break }
            try handle(event, in: input)
        }
        return release()
    }

    func finish() throws(MediatedAnswer) -> [UInt8] {
        let last: MultipartEvent?
        do { last = try parser.finish() } catch { throw Self.answer(for: error) }
        if let last { try handle(last, in: UnsafeRawBufferPointer(start: nil, count: 0)) }
        guard isFinished else { throw Self.malformed }
        // Missing `file` / `device_id` (and `context` again) by the contract model itself.
        do {
            _ = try DocumentMetadata(textParts: textParts, fileName: fileName, fileContentType: fileContentType)
        } catch {
            throw Self.refusal(error)
        }
        output.append(contentsOf: writer.finish())
        isCommitted = true
        return release()
    }

    // MARK: Events

    private func handle(_ event: MultipartEvent, in input: UnsafeRawBufferPointer) throws(MediatedAnswer) {
        switch event {
        case .partBegan(let head):
            if head.isFile {
                guard head.name == "file", !hasFile else {
                    part = .ignored
                    return
                }
                hasFile = true
                part = .file
                fileName = head.preferredFilename ?? ""
                fileContentType = head.contentType
                let filename = DocumentMetadata.sanitizedFilename(head.preferredFilename ?? "")
                output.append(contentsOf: writer.beginFile(name: "file", filename: filename, contentType: head.contentType))
                if hasDeviceID { isCommitted = true }
            } else {
                part = .field(head.name)
                fieldValue.removeAll(keepingCapacity: true)
            }
        case .content(let range):
            append(UnsafeRawBufferPointer(rebasing: input[range]))
        case .heldContent(let bytes):
            bytes.withUnsafeBytes { append($0) }
        case .partEnded:
            if case .field(let name) = part { try fieldEnded(name) }
            part = nil
        case .finished:
            isFinished = true
        }
    }

    private func append(_ bytes: UnsafeRawBufferPointer) {
        switch part {
        case .file:
            output.append(contentsOf: bytes)
        case .field:
            fieldValue.append(contentsOf: bytes)
        case .ignored, nil:
            break
        }
    }

    /// A text field is complete: checked by the rules of routes.md §2.8, then forwarded.
    private func fieldEnded(_ name: String) throws(MediatedAnswer) {
        let value = String(decoding: fieldValue, as: UTF8.self)
        let isFirst = textParts[name] == nil
        if isFirst { textParts[name] = value }
        switch name {
        case "device_id":
            // An empty device_id counts as missing; the model reads the first occurrence.
            guard isFirst, !value.isEmpty else { return }
            hasDeviceID = true
            if hasFile { isCommitted = true }
        case "user_email":
            guard !value.isEmpty else { return }  // empty → absent
        case "context":
            // Checked as soon as the part ends, so a bad context usually never reaches the upstream.
            let context: JSONObject?
            do { context = try DocumentMetadata.context(value) } catch { throw Self.refusal(error) }
            guard context != nil else { return }  // blank → absent
        default:
            break
        }
        // The bytes as sent: a field that is not UTF-8 is forwarded unchanged, never "repaired".
        output.append(contentsOf: writer.field(name: name, value: fieldValue))
    }

    private func release() -> [UInt8] {
        guard isCommitted, !output.isEmpty else { return [] }
        defer { output.removeAll(keepingCapacity: true) }
        return output
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
