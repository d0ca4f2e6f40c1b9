import AppNativeProxy

/// Holds a native route's JSON body (capped before any decoding) and releases it, exactly as the
/// app sent it, only once the contract accepts it: the upstream never sees a malformed event, and
/// "field absent" versus "field null" survives because the bytes are not re-encoded.
final class JSONEventFilter: RequestBodyFilter {
    private let maxBytes: Int
    private let validate: ([UInt8]) -> MediatedAnswer?
    private var body: [UInt8] = []

    /// `validate` returns the refusal (422) for a body the contract rejects, `nil` to accept it.
    init(maxBytes: Int, validate: @escaping ([UInt8]) -> MediatedAnswer?) {
        self.maxBytes = maxBytes
        self.validate = validate
    }

    var upstreamContentType: String? { "application/json" }

    func consume(_ chunk: ArraySlice<UInt8>) throws(MediatedAnswer) -> [UInt8] {
        guard body.count + chunk.count <= maxBytes else {
            throw NativeAnswers.detail(413, "Request body too large")
        }
        body.append(contentsOf: chunk)
        return []
    }

    func finish() throws(MediatedAnswer) -> [UInt8] {
        if let refusal = validate(body) { throw refusal }
        defer { body = [] }
        return body
    }
}

@available(*, unavailable, message: "loop-owned")
extension JSONEventFilter: Sendable {}
