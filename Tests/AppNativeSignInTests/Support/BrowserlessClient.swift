import AppNativeAuth
import AppNativeClient
import AppNativeCore
import AppNativeCrypto
import AppNativeHTTP
import AppNativeJSON
import AppNativeSignIn

/// Plays the browser's part of a sign-in with plain requests: no redirects followed, so each
/// `Location` is read and checked.
enum BrowserlessClient {
    static func get(_ url: String) async throws -> HTTPResponse {
        var request = HTTPRequest(url: url)
        request.allowsCleartextOnLoopback = true
        return try await CurlHTTPClient.shared.send(request)
    }

    static func postForm(_ url: String, _ pairs: [(name: String, value: String)]) async throws -> HTTPResponse {
        var request = HTTPRequest(url: url, method: "POST")
        request.headers = [HTTPHeaderField(name: "Content-Type", value: "application/x-www-form-urlencoded")]
        request.body = FormURLEncoding.serialize(pairs)
        request.allowsCleartextOnLoopback = true
        return try await CurlHTTPClient.shared.send(request)
    }

    static func location(_ response: HTTPResponse) -> String? {
        response.headers.first { $0.name.lowercased() == "location" }?.value
    }

    /// The query pairs of a `Location`, as a dictionary (names are unique in these answers).
    static func query(_ location: String?) -> [String: String] {
        guard let location else { return [:] }
        var out: [String: String] = [:]
        for (name, value) in FormURLEncoding.parseQuery(ofTarget: location) { out[name] = value }
        return out
    }

    /// A fresh PKCE pair (RFC 7636 §4.1, §4.2).
    static func pkce() -> (verifier: String, challenge: String) {
        let verifier = Base64URL.encode(SecureRandom.bytes(count: 32))
        return (verifier, Base64URL.encode(SHA256.hash(verifier)))
    }

    static func body(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }
}
