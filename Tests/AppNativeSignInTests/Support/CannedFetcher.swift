import AppNativeAuth
import AppNativeClient
import AppNativeCore
import AppNativeCrypto
import AppNativeJSON

/// An `HTTPFetching` fake that answers every request with one canned response or error and
/// records what it was sent.
final class CannedFetcher: HTTPFetching, Sendable {
    enum Answer: Sendable {
        case response(HTTPResponse)
        case failure(ClientError)
    }

    private let answer: Answer
    private let sent = Locked([HTTPRequest]())

    init(_ answer: Answer) {
        self.answer = answer
    }

    convenience init(status: Int = 200, body: String) {
        self.init(.response(HTTPResponse(status: status, body: Array(body.utf8))))
    }

    var requests: [HTTPRequest] { sent.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws(ClientError) -> HTTPResponse {
        sent.withLock { $0.append(request) }
        switch answer {
        case .response(let response): return response
        case .failure(let error): throw error
        }
    }
}
