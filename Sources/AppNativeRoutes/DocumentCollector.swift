import AppNativeHTTP
import AppNativeModels

/// Reads a `POST {p}/documents` body while it streams (routes.md §2.8) and judges it in the
/// contract's order once it is complete.
///
/// Text parts are bounded by `MultipartLimits.maxFieldBytes`; the first file part named `file`
/// is kept in memory up to `maxBytes` (as the Python router does). Past that, its bytes are
/// counted and dropped but the body is read on to the end, because the contract judges missing
/// parts and `context` before the size: memory stays bounded by the cap whatever the upload's
/// size.
final class DocumentCollector {
    private var parser: MultipartParser
    private let maxBytes: Int

    private enum Part {
        case field(String)
        case file
        /// Another file part, or a second `file`: not part of the contract, not kept.
        case ignored
    }

    private var part: Part?
    private var fieldValue: [UInt8] = []
    /// First occurrence of each text part.
    private var textParts: [String: String] = [:]
    private var fileName: String?
    private var fileContentType: String?
    private var content: [UInt8] = []
    private var isTooLarge = false
    private var isFinished = false

    /// Most parts in one upload: the contract has eight.
    static let maxParts = 64

    /// `nil` when `contentType` is not `multipart/form-data` with a valid boundary.
    init?(contentType: String?, maxBytes: Int) {
        guard let contentType else { return nil }
        let limits = MultipartLimits(maxParts: Self.maxParts, maxFieldBytes: 65_536, maxFileBytes: nil)
        guard let parser = try? MultipartParser(contentType: contentType, limits: limits) else { return nil }
        self.parser = parser
        self.maxBytes = maxBytes
    }

    /// Consumes one piece of the body; an answer means the body is refused (malformed, or a text
    /// part past its limit) and reading should stop.
    func consume(_ chunk: UnsafeRawBufferPointer) -> NativeAnswer? {
        var offset = 0
        while offset <= chunk.count {
            let input = UnsafeRawBufferPointer(rebasing: chunk[offset...])
            let step: (consumed: Int, event: MultipartEvent?)
            do { step = try parser.parse(input) } catch { return Self.answer(for: error) }
            offset += step.consumed
            guard let event = step.event else { break }
            handle(event, in: input)
        }
        return nil
    }

    /// The verdict on the complete body: the upload, or its refusal in the contract's order
    /// (malformed 400; missing `file`/`device_id` 422; bad `context` 422; too large 413).
    func finish() -> Result<DocumentUpload, NativeAnswerError> {
        do {
            if let last = try parser.finish() { handle(last, in: UnsafeRawBufferPointer(start: nil, count: 0)) }
        } catch {
            return .failure(NativeAnswerError(answer: Self.answer(for: error)))
        }
        guard isFinished else { return .failure(NativeAnswerError(answer: .malformedMultipart)) }
        let metadata: DocumentMetadata
        do {
            metadata = try DocumentMetadata(textParts: textParts, fileName: fileName, fileContentType: fileContentType)
        } catch {
            return .failure(NativeAnswerError(answer: .json(error.httpStatus, error.responseBytes())))
        }
        guard !isTooLarge else { return .failure(NativeAnswerError(answer: .documentTooLarge)) }
        return .success(DocumentUpload(metadata: metadata, content: content))
    }

    /// The refusal of a body that is not `multipart/form-data` at all: both required parts missing.
    static func notMultipart() -> NativeAnswer {
        do {
            _ = try DocumentMetadata(textParts: [:], fileName: nil, fileContentType: nil)
            preconditionFailure("metadata without a file or device_id was accepted")
        } catch {
            return .json(error.httpStatus, error.responseBytes())
        }
    }

    // MARK: Events

    private func handle(_ event: MultipartEvent, in input: UnsafeRawBufferPointer) {
        switch event {
        case .partBegan(let head):
            if head.isFile {
                guard head.name == "file", fileName == nil else {
                    part = .ignored
                    return
                }
                fileName = head.preferredFilename ?? ""
                fileContentType = head.contentType
                part = .file
            } else {
                part = .field(head.name)
                fieldValue.removeAll(keepingCapacity: true)
            }
        case .content(let range):
            append(UnsafeRawBufferPointer(rebasing: input[range]))
        case .heldContent(let bytes):
            bytes.withUnsafeBytes { append($0) }
        case .partEnded:
            if case .field(let name) = part, textParts[name] == nil {
                textParts[name] = String(decoding: fieldValue, as: UTF8.self)
            }
            part = nil
        case .finished:
            isFinished = true
        }
    }

    private func append(_ bytes: UnsafeRawBufferPointer) {
        switch part {
        case .file:
            guard !isTooLarge else { return }
            if content.count + bytes.count > maxBytes {
                isTooLarge = true
                content = []
            } else {
                content.append(contentsOf: bytes)
            }
        case .field:
            fieldValue.append(contentsOf: bytes)
        case .ignored, nil:
            break
        }
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
