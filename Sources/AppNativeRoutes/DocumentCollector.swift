import AppNativeHTTP
import AppNativeModels

// Unsafe: the file's bytes are the reader's event buffer, valid for the callback; they are copied.

/// Reads a `POST {p}/documents` body while it streams (contract/routes.md §2.8) and judges it in the
/// contract's order once it is complete.
///
/// Parts and text fields are bounded by ``DocumentUploadForm``'s limits; the first file part named `file`
/// is kept in memory up to `maxBytes` (as the Python router does). Past that, its bytes are
/// counted and dropped but the body is read on to the end, because the contract judges missing
/// parts and `context` before the size: memory stays bounded by the cap whatever the upload's
/// size.
final class DocumentCollector {
    private var reader: MultipartFormReader
    private let maxBytes: Int
    private var content: [UInt8] = []
    private var isTooLarge = false

    /// `nil` when `contentType` is not `multipart/form-data` with a valid boundary.
    init?(contentType: String?, maxBytes: Int) {
        // The file is counted here, not by the reader: the contract judges missing parts and
        // `context` before the size.
        guard let reader = DocumentUploadForm.reader(contentType: contentType, maxFileBytes: nil) else { return nil }
        self.reader = reader
        self.maxBytes = maxBytes
    }

    /// Consumes one piece of the body; an answer means the body is refused (malformed, or a text
    /// part past its limit) and reading should stop.
    func consume(_ chunk: ArraySlice<UInt8>) -> NativeAnswer? {
        do throws(HTTPParseError) {
            try reader.consume(chunk) { keep($0) }
        } catch {
            return Self.answer(for: error)
        }
        return nil
    }

    /// The verdict on the complete body: the upload, or its refusal in the contract's order
    /// (malformed 400; missing `file`/`device_id` 422; bad `context` 422; too large 413).
    func finish() -> Result<DocumentUpload, NativeAnswerError> {
        do throws(HTTPParseError) {
            try reader.finish { keep($0) }
        } catch {
            return .failure(NativeAnswerError(answer: Self.answer(for: error)))
        }
        guard reader.isFinished else { return .failure(NativeAnswerError(answer: .malformedMultipart)) }
        let metadata: DocumentMetadata
        do {
            metadata = try DocumentMetadata(
                textParts: reader.fields, fileName: reader.file.map { $0.preferredFilename ?? "" },
                fileContentType: reader.file?.contentType)
        } catch {
            return .failure(NativeAnswerError(answer: .json(error.httpStatus, error.responseBytes())))
        }
        guard !isTooLarge else { return .failure(NativeAnswerError(answer: .documentTooLarge)) }
        return .success(DocumentUpload(metadata: metadata, content: content))
    }

    /// The refusal of a body that is not `multipart/form-data` at all: both required parts missing.
    static func notMultipart() -> NativeAnswer {
        let error = DocumentMetadata.missingRequiredParts
        return .json(error.httpStatus, error.responseBytes())
    }

    /// Keeps the file in memory up to `maxBytes`; past that, counts it as too large and drops
    /// it (the fields are kept by the reader).
    private func keep(_ event: MultipartFormReader.Event) -> Bool {
        guard case .fileContent(let bytes) = event, !isTooLarge else { return true }
        if content.count + bytes.count > maxBytes {
            isTooLarge = true
            content = []
        } else {
            unsafe content.append(contentsOf: bytes)
        }
        return true
    }

    private static func answer(for error: HTTPParseError) -> NativeAnswer {
        error.status == 413 ? .documentTooLarge : .malformedMultipart
    }
}

/// A refusal carried through a `Result`.
struct NativeAnswerError: Error {
    let answer: NativeAnswer
}

@available(*, unavailable, message: "loop-owned")
extension DocumentCollector: Sendable {}
