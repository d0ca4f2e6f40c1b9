import AppNativeHTTP
import AppNativeProxy
import AppNativeRoutes

/// The document upload (contract/routes.md §2.8) while it streams, judged by
/// ``DocumentUploadCheck`` (the rules every server of the routes applies) and re-encoded as
/// `multipart/form-data` with the same field names and the sanitised filename for the upstream.
///
/// Nothing reaches the upstream before the upload has a non-empty `device_id` and its `file` part
/// has begun, so most refusals (no device, bad `context`) cost the upstream nothing. From then on
/// the file streams through with bounded memory; a refusal after that point (a `context` or a
/// size problem found later) drops the upstream connection mid-body, so the upstream's parser never
/// sees a complete upload and never calls back. Until the commit, bytes are held, bounded by
/// the file limit (an app that sends the file before `device_id`).
final class DocumentUploadFilter: RequestBodyFilter {
    private var check: DocumentUploadCheck
    private var writer = MultipartWriter()
    /// Re-encoded bytes not yet released to the upstream.
    private var output: [UInt8] = []
    private var commit = Commit.awaitingBoth

    /// Whether the upstream may see the upload yet: once it has a `device_id` and its file began.
    private enum Commit {
        case awaitingBoth
        case awaitingFile
        case awaitingDeviceID
        case committed

        var withDeviceID: Commit {
            switch self {
            case .awaitingBoth: .awaitingFile
            case .awaitingDeviceID: .committed
            case .awaitingFile, .committed: self
            }
        }

        var withFile: Commit {
            switch self {
            case .awaitingBoth: .awaitingDeviceID
            case .awaitingFile: .committed
            case .awaitingDeviceID, .committed: self
            }
        }
    }

    init(check: DocumentUploadCheck) {
        self.check = check
    }

    var upstreamContentType: String? { writer.contentType }

    func consume(_ chunk: ArraySlice<UInt8>) throws(CompleteResponse) -> [UInt8] {
        try check.consume(chunk) { forward($0) }
        return release()
    }

    func finish() throws(CompleteResponse) -> [UInt8] {
        _ = try check.finish { forward($0) }
        output.append(contentsOf: writer.finish())
        commit = .committed
        return release()
    }

    /// Re-encodes what the check hands over; commits once the upload has a `device_id` and its
    /// file has begun. Every occurrence of a field is forwarded: a repeated field arrives
    /// repeated, and the last one is the one the reference (and the model) reads.
    // Unsafe: the event's buffers are valid for this call only; they are copied into `output`.
    private func forward(_ event: DocumentUploadCheck.Event) {
        switch event {
        case .fileBegan(let filename, let contentType):
            output.append(contentsOf: writer.beginFile(name: DocumentUploadCheck.fileFieldName, filename: filename, contentType: contentType))
            commit = commit.withFile
        case .fileContent(let bytes):
            unsafe output.append(contentsOf: bytes)
        case .field(let name, let value):
            unsafe output.append(contentsOf: writer.field(name: name, value: Array(value)))
            if name == DocumentUploadCheck.deviceIDFieldName { commit = commit.withDeviceID }
        }
    }

    private func release() -> [UInt8] {
        guard case .committed = commit, !output.isEmpty else { return [] }
        // Handed over whole: keeping the capacity would allocate a second buffer of that size
        // right away (the returned array still shares this one).
        var released: [UInt8] = []
        swap(&released, &output)
        return released
    }
}

@available(*, unavailable, message: "loop-owned")
extension DocumentUploadFilter: Sendable {}
