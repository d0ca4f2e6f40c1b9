public import AppNativeClient
public import AppNativeCore
import AppNativeHTTP
import AppNativeJSON

/// The gateway's own access token for an API (Microsoft Graph), from the client credentials
/// grant (RFC 6749 §4.4; Microsoft identity platform, "OAuth 2.0 client credentials flow").
public struct ApplicationToken: Sendable {
    /// The bearer token; never logged.
    public let accessToken: Secret<String>
    /// `expires_in`: seconds the token is valid from the answer.
    public let expiresInSeconds: Int

    public init(accessToken: Secret<String>, expiresInSeconds: Int) {
        self.accessToken = accessToken
        self.expiresInSeconds = expiresInSeconds
    }
}

/// Why the token endpoint gave no application token: the provider failure, Entra's `AADSTS`
/// numbers from the answer's `error_codes` (numbers only, so nothing the endpoint echoes reaches
/// a log), and the `Retry-After` seconds of a throttling answer.
public struct ApplicationTokenFailure: Error, Sendable, Equatable {
    public let failure: SignInProviderError
    public let entraErrorCodes: [Int]
    public let retryAfterSeconds: Int?

    public init(_ failure: SignInProviderError, entraErrorCodes: [Int] = [], retryAfterSeconds: Int? = nil) {
        self.failure = failure
        self.entraErrorCodes = entraErrorCodes
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// `AADSTS7000215,AADSTS7000222` for logs, or `nil` when the answer named none.
    public var entraErrors: String? {
        entraErrorCodes.isEmpty ? nil : entraErrorCodes.map { "AADSTS\($0)" }.joined(separator: ",")
    }
}

extension TokenEndpointClient {
    /// Requests an application token for `scope` (`https://graph.microsoft.com/.default`):
    /// `grant_type=client_credentials`, `client_id`, `scope` and the client authentication the
    /// sign-in uses (secret, certificate assertion or federated token), over the same transport
    /// rules (timeout, size cap, no redirects, no proxy from the environment).
    ///
    /// - Throws: `ApplicationTokenFailure` with `.credential`, `.unreachable` (transport, timeout),
    ///   `.refused` (an error status; the RFC 6749 §5.2 `error` when a plain token, and Entra's
    ///   `error_codes`), `.malformed` (a 200 without a bearer `access_token` and a positive
    ///   `expires_in`, or too large).
    public func applicationToken(scope: String) async throws(ApplicationTokenFailure) -> ApplicationToken {
        var pairs: [(name: String, value: String)] = [
            ("grant_type", "client_credentials"), ("client_id", clientID), ("scope", scope),
        ]
        do {
            pairs += try clientAuthentication()
        } catch {
            throw ApplicationTokenFailure(error)
        }
        let request = HTTPRequest.identityServiceJSON(
            url: tokenEndpoint, method: "POST",
            headers: [HTTPHeaderField(name: "Content-Type", value: "application/x-www-form-urlencoded")],
            body: FormURLEncoding.serialize(pairs), timeout: timeout, connectTimeout: min(timeout, .seconds(5)),
            maxResponseBytes: Self.maxAnswerBytes, caFile: caFile)
        let response: HTTPResponse
        do {
            response = try await client.send(request)
        } catch {
            throw ApplicationTokenFailure(ProviderTransportFailure.error(for: error, what: "token endpoint answer"))
        }
        return try Self.applicationToken(status: response.status, headers: response.headers, body: response.body)
    }

    /// Reads a client credentials answer (RFC 6749 §5.1 and §5.2, as Entra's token endpoint
    /// shapes them). Pure, for tests.
    public static func applicationToken(
        status: Int, headers: [HTTPHeaderField], body: [UInt8]
    ) throws(ApplicationTokenFailure) -> ApplicationToken {
        guard status == 200 else {
            throw ApplicationTokenFailure(
                .refused(status: status, oauthError: TokenEndpointResponse.oauthError(in: body)),
                entraErrorCodes: entraErrorCodes(in: body), retryAfterSeconds: RetryAfter.seconds(in: headers))
        }
        var options = JSONParser.Options()
        options.maxBytes = maxAnswerBytes
        options.maxDepth = 16
        guard let object = (try? JSONParser(options: options).parse(body))?.objectValue else {
            throw ApplicationTokenFailure(.malformed(reason: "token endpoint answer is not a JSON object"))
        }
        guard let type = object["token_type"]?.stringValue, type.lowercased() == "bearer" else {
            throw ApplicationTokenFailure(.malformed(reason: "token endpoint answer's token_type is not Bearer"))
        }
        guard let token = object["access_token"]?.stringValue, !token.isEmpty, token.utf8.count <= 32 * 1024,
            token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else {
            throw ApplicationTokenFailure(.malformed(reason: "token endpoint answer's access_token is not a visible-ASCII string"))
        }
        // Entra's v2.0 endpoint sends a number, its v1.0 endpoint a string of digits.
        let expiresIn: Int64? =
            switch object["expires_in"] {
            case .number(let number)?: number.int64
            case .string(let text)? where text.utf8.count <= 10 && text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }): Int64(text)
            default: nil
            }
        guard let expiresIn, expiresIn > 0, expiresIn <= 86_400 else {
            throw ApplicationTokenFailure(.malformed(reason: "token endpoint answer's expires_in is not 1…86400 seconds"))
        }
        return ApplicationToken(accessToken: Secret(token), expiresInSeconds: Int(expiresIn))
    }

    /// Entra's `error_codes` (the numbers behind `AADSTS`), at most four, each 1…99999999.
    static func entraErrorCodes(in body: [UInt8]) -> [Int] {
        var options = JSONParser.Options()
        options.maxBytes = maxAnswerBytes
        options.maxDepth = 16
        guard let codes = (try? JSONParser(options: options).parse(body))?.objectValue?["error_codes"]?.arrayValue else { return [] }
        return codes.prefix(4).compactMap { value in
            guard let code = value.numberValue?.int64, code > 0, code <= 99_999_999 else { return nil }
            return Int(code)
        }
    }
}
