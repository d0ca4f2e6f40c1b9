public import AppNativeCore

/// Why a message was refused, and the status to answer with.
///
/// Thrown by `HTTPRequestParser` (status 400, 413, 414, 431, 501 or 505),
/// `HTTPResponseParser` (always 502: a broken upstream response is the gateway's problem to
/// report, not the client's) and `MultipartParser` (400 or 413; a multipart body is request
/// content, so its limits answer 413, never 431). The connection must be closed after
/// answering: the parsers do not resynchronise, because guessing where the next message starts
/// is how requests get smuggled.
///
/// `reason` names the rule that failed, never the bytes that failed it, so it is safe to log.
/// Equality compares `code` only (docs/style.md §4).
public struct HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong. New codes can be added without breaking callers.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case invalidRequestLine, invalidTarget, invalidVersion, invalidStatusLine
            case unsupportedMethod, refusedMethod, unsupportedVersion
            case invalidHeader, whitespaceBeforeColon, obsFold, bareCR, bareLF
            case missingHost, duplicateHost, invalidHost, authorityMismatch, duplicateAuthorization
            case ambiguousFraming, invalidContentLength, invalidTransferEncoding, unsupportedTransferCoding
            case invalidChunk
            case requestLineTooLong, headerSectionTooLarge, tooManyHeaders, bodyTooLarge
            case truncated
            case invalidMultipartType, missingBoundary, invalidBoundary, invalidDelimiter, missingPartName
            case partHeaderTooLarge, tooManyPartHeaders, tooManyParts, partTooLarge
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The request line does not match `method SP request-target SP HTTP-version` (RFC 9112 §3).
        public static let invalidRequestLine = Code(.invalidRequestLine)
        /// The request target has a byte or a form RFC 9112 §3.2 does not allow for this method.
        public static let invalidTarget = Code(.invalidTarget)
        /// The version is not `HTTP/` DIGIT `.` DIGIT (RFC 9112 §2.3).
        public static let invalidVersion = Code(.invalidVersion)
        /// The status line does not match `HTTP-version SP 3DIGIT SP reason` (RFC 9112 §4).
        public static let invalidStatusLine = Code(.invalidStatusLine)
        /// The method is a token but not on the gateway's allow-list (501, RFC 9110 §9.1).
        public static let unsupportedMethod = Code(.unsupportedMethod)
        /// TRACE or QUERY: registered methods the gateway refuses everywhere (405 with `Allow`,
        /// RFC 9110 §15.5.6). TRACE would echo the identity fields the gateway injects.
        public static let refusedMethod = Code(.refusedMethod)
        /// The major version is not 1 (505, RFC 9110 §15.6.6).
        public static let unsupportedVersion = Code(.unsupportedVersion)
        /// A field line is not `field-name ":" OWS field-value OWS` (RFC 9112 §5, RFC 9110 §5.5).
        public static let invalidHeader = Code(.invalidHeader)
        /// Whitespace between a field name and its colon (RFC 9112 §5.1: MUST reject with 400).
        public static let whitespaceBeforeColon = Code(.whitespaceBeforeColon)
        /// A line folded with leading whitespace (obs-fold, RFC 9112 §5.2).
        public static let obsFold = Code(.obsFold)
        /// A CR not followed by LF (RFC 9112 §2.2).
        public static let bareCR = Code(.bareCR)
        /// An LF not preceded by CR; this parser does not accept bare LF as a line end (RFC 9112 §2.2).
        public static let bareLF = Code(.bareLF)
        /// An HTTP/1.1 request without Host (RFC 9112 §3.2).
        public static let missingHost = Code(.missingHost)
        /// More than one Host field line (RFC 9112 §3.2).
        public static let duplicateHost = Code(.duplicateHost)
        /// A Host value that is not `uri-host [ ":" port ]`, or an absolute-form target whose
        /// authority is not (RFC 9110 §7.2, §4.2.4).
        public static let invalidHost = Code(.invalidHost)
        /// An absolute-form target whose authority is not the Host field's value (gateway policy:
        /// one request, one host).
        public static let authorityMismatch = Code(.authorityMismatch)
        /// More than one Authorization field line (gateway policy: Authorization is a singleton).
        public static let duplicateAuthorization = Code(.duplicateAuthorization)
        /// Both Content-Length and Transfer-Encoding (RFC 9112 §6.3, §6.1).
        public static let ambiguousFraming = Code(.ambiguousFraming)
        /// Content-Length is not a single `1*DIGIT` that fits 64 bits (RFC 9110 §8.6).
        public static let invalidContentLength = Code(.invalidContentLength)
        /// Transfer-Encoding is empty, repeats `chunked`, does not end in `chunked`, names
        /// `identity`, or appears in HTTP/1.0 (RFC 9112 §6.1, §6.3).
        public static let invalidTransferEncoding = Code(.invalidTransferEncoding)
        /// A transfer coding other than `chunked` (501, RFC 9112 §6.1).
        public static let unsupportedTransferCoding = Code(.unsupportedTransferCoding)
        /// The chunked framing does not match RFC 9112 §7.1.
        public static let invalidChunk = Code(.invalidChunk)
        /// The request line passes `HTTPLimits.maxRequestLineBytes` (414).
        public static let requestLineTooLong = Code(.requestLineTooLong)
        /// A field section (or one of its lines) passes `HTTPLimits.maxHeaderBytes` (431).
        public static let headerSectionTooLarge = Code(.headerSectionTooLarge)
        /// A field section has more than `HTTPLimits.maxHeaderCount` lines (431).
        public static let tooManyHeaders = Code(.tooManyHeaders)
        /// A declared or accumulated body size passes `HTTPLimits.maxBodyBytes` (413).
        public static let bodyTooLarge = Code(.bodyTooLarge)
        /// The peer closed the connection in the middle of a message, or a multipart body ended
        /// before its close delimiter (RFC 2046 §5.1.1).
        public static let truncated = Code(.truncated)
        /// The request's Content-Type is not `multipart/form-data` with well-formed parameters
        /// (RFC 7578 §4.1, RFC 9110 §8.3.1).
        public static let invalidMultipartType = Code(.invalidMultipartType)
        /// The Content-Type is `multipart/form-data` without a `boundary` parameter.
        public static let missingBoundary = Code(.missingBoundary)
        /// A part has no Content-Disposition, or one without a `name` parameter (RFC 7578 §4.2).
        public static let missingPartName = Code(.missingPartName)
        /// The `boundary` parameter is repeated, empty, longer than 70 characters, or
        /// has a character outside `bchars` (RFC 2046 §5.1.1).
        public static let invalidBoundary = Code(.invalidBoundary)
        /// A delimiter is followed by something other than transport padding and CRLF
        /// (RFC 2046 §5.1.1).
        public static let invalidDelimiter = Code(.invalidDelimiter)
        /// A part header line passes `MultipartLimits.maxHeaderLineBytes` (413).
        public static let partHeaderTooLarge = Code(.partHeaderTooLarge)
        /// A part has more than `MultipartLimits.maxHeaderCount` header lines (413).
        public static let tooManyPartHeaders = Code(.tooManyPartHeaders)
        /// The body has more than `MultipartLimits.maxParts` parts (413).
        public static let tooManyParts = Code(.tooManyParts)
        /// A part's content passes `MultipartLimits.maxFieldBytes` or `maxFileBytes` (413).
        public static let partTooLarge = Code(.partTooLarge)

        /// The status a server answers a request that failed with this code.
        var requestStatus: Int {
            switch value {
            case .unsupportedMethod, .unsupportedTransferCoding: 501
            case .refusedMethod: 405
            case .unsupportedVersion: 505
            case .requestLineTooLong: 414
            case .headerSectionTooLarge, .tooManyHeaders: 431
            case .bodyTooLarge, .partHeaderTooLarge, .tooManyPartHeaders, .tooManyParts, .partTooLarge: 413
            default: 400
            }
        }

        /// The code's name, for logs.
        public var description: String { value.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// The status to answer with: 400, 413, 414, 431, 501 or 505 for requests; 502 for responses.
    public let status: Int
    /// Which rule failed, for logs. Never contains message bytes.
    public let reason: String
    /// Where it was thrown.
    public let location: SourceLocation

    /// - Parameters:
    ///   - code: what went wrong.
    ///   - status: the status to answer with; by default the one a server answers a request with.
    ///   - reason: which rule failed; must not contain message bytes.
    ///   - file: the throwing file, filled in by the compiler.
    ///   - line: the throwing line, filled in by the compiler.
    public init(
        _ code: Code,
        status: Int? = nil,
        reason: String,
        file: String = #fileID,
        line: Int = #line
    ) {
        self.code = code
        self.status = status ?? code.requestStatus
        self.reason = reason
        self.location = SourceLocation(file: file, line: line)
    }

    /// The same error with the status a gateway answers for a broken upstream response.
    func asUpstreamError() -> HTTPParseError {
        HTTPParseError(code, status: 502, reason: "upstream response: " + reason, file: location.file, line: location.line)
    }

    /// Whether both errors have the same code; status, reason and location are not compared.
    public static func == (lhs: HTTPParseError, rhs: HTTPParseError) -> Bool { lhs.code == rhs.code }

    /// `<status> <code>: <reason> (<file>:<line>)`.
    public var description: String { "\(status) \(code): \(reason) (\(location))" }
}
