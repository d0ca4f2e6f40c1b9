import AppNativeClient
import Foundation

/// A request that may use `http://` because every peer in these tests is on loopback.
func cleartextRequest(_ url: String, method: String = "GET") -> HTTPRequest {
    var request = HTTPRequest(url: url, method: method)
    request.allowsCleartextOnLoopback = true
    return request
}

/// The error `operation` throws, or nil when it succeeds.
func failure(of operation: () async throws(ClientError) -> HTTPResponse) async -> ClientError? {
    do {
        _ = try await operation()
        return nil
    } catch {
        return error
    }
}

/// The `ClientError` a task failed with, or nil when it succeeded or failed otherwise.
func failure(of task: Task<HTTPResponse, any Error>) async -> ClientError? {
    guard case .failure(let error) = await task.result else { return nil }
    return error as? ClientError
}

struct NotAJSONObject: Error {}

/// The response body as a JSON object (Foundation on the test side only).
func jsonObject(_ body: [UInt8]) throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
        throw NotAJSONObject()
    }
    return object
}
