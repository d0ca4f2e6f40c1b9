import AppNativeHTTP
import AppNativeProxy
import AppNativeRoutes

/// Holds a native route's JSON body (capped before any decoding) and releases, once the contract
/// accepts it, the body the backend receives: the validated model written as the reference's
/// callback model (upstream-contract.md). The upstream never sees a malformed event or a key the
/// model does not know, and "field absent" versus "field null" survives.
final class JSONEventFilter: RequestBodyFilter {
    private let maxBytes: Int
    private let forward: ([UInt8]) -> Result<[UInt8], CompleteResponse>
    private var body: [UInt8] = []

    /// `forward` returns the body to forward, or the refusal (422) for a body the contract rejects.
    init(maxBytes: Int, forward: @escaping ([UInt8]) -> Result<[UInt8], CompleteResponse>) {
        self.maxBytes = maxBytes
        self.forward = forward
    }

    var upstreamContentType: String? { "application/json" }

    func consume(_ chunk: ArraySlice<UInt8>) throws(CompleteResponse) -> [UInt8] {
        guard body.count + chunk.count <= maxBytes else {
            throw .bodyTooLarge
        }
        body.append(contentsOf: chunk)
        return []
    }

    func finish() throws(CompleteResponse) -> [UInt8] {
        defer { body = [] }
        return try forward(body).get()
    }
}

@available(*, unavailable, message: "loop-owned")
extension JSONEventFilter: Sendable {}
