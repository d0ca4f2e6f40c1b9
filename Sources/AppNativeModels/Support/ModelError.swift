internal import AppNativeJSON

/// A request body or model definition that does not satisfy `contract/models.md` / `contract/routes.md`.
///
/// One error carries every problem found in one pass (docs/style.md §4), so a client fixes its body
/// in one round trip. Equality compares `code` only, so tests match codes; tests that care about
/// a rule look at ``issues``.
public struct ModelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable error kind. New codes can be added without breaking callers.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case invalid
            case bodyTooLarge = "body_too_large"
            case contextNotObject = "context_not_object"
            case unknownUploadReference = "unknown_upload_reference"
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The body was read but is not valid JSON or breaks a model rule: answered 422 with
        /// every issue in ``ModelError/issues``.
        public static let invalid = Code(.invalid)
        /// The body is longer than the route's byte cap: answered 413 before any parsing.
        public static let bodyTooLarge = Code(.bodyTooLarge)

        /// A document upload's `context` part is not a JSON object (`contract/routes.md` §2.8 step 3):
        /// 422 with the contract's fixed string `detail`.
        public static let contextNotObject = Code(.contextNotObject)

        /// Native form file references that are unknown, expired or another user's
        /// (`contract/routes.md` §5): 422 listing them in ``ModelError/unknownReferences``.
        public static let unknownUploadReference = Code(.unknownUploadReference)

        /// The code as logged (`invalid`, `body_too_large`).
        public var description: String { value.rawValue }
    }

    /// What went wrong overall.
    public let code: Code
    /// Every rule the input breaks, in document order of discovery; empty for `.bodyTooLarge`.
    public let issues: [ValidationIssue]
    /// For `.unknownUploadReference`: the refs that did not resolve, distinct, in first-seen order.
    public let unknownReferences: [String]
    /// The failed rule in words, for logs. Never quotes input values.
    public let reason: String
    /// The source file that threw, for logs.
    public let file: String
    /// The source line that threw, for logs.
    public let line: Int

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: the overall kind.
    ///   - issues: the individual rule violations (at least one for `.invalid`).
    ///   - reason: a summary for logs that must not quote the input.
    public init(
        _ code: Code, issues: [ValidationIssue] = [], unknownReferences: [String] = [], reason: String,
        file: String = #fileID, line: Int = #line
    ) {
        self.code = code
        self.issues = issues
        self.unknownReferences = unknownReferences
        self.reason = reason
        self.file = file
        self.line = line
    }

    /// An `.invalid` error over `issues`, with a reason naming how many and of which kinds.
    init(issues: [ValidationIssue], file: String = #fileID, line: Int = #line) {
        let summary = issues.prefix(3).map { "\($0.pathDescription): \($0.type)" }.joined(separator: ", ")
        let more = issues.count > 3 ? " and \(issues.count - 3) more" : ""
        self.init(.invalid, issues: issues, reason: "\(issues.count) issue(s): \(summary)\(more)", file: file, line: line)
    }

    /// Whether any issue breaks a size limit (an `L` row of `contract/models.md`).
    ///
    /// The app tells the page "tooLarge" rather than "invalid" for these, because the fix is to
    /// send less, not to send something else. When a definition breaks both kinds of rules the
    /// limit wins: the page author has to shrink it either way.
    public var isTooLarge: Bool {
        code == .bodyTooLarge || issues.contains { $0.kind == .tooLarge }
    }

    /// The HTTP status of `contract/routes.md` §0/§2.8: 413 for an over-long body, 422 otherwise.
    public var httpStatus: Int {
        code == .bodyTooLarge ? 413 : 422
    }

    /// Whether both errors have the same code; issues, reason and site are ignored.
    public static func == (lhs: ModelError, rhs: ModelError) -> Bool { lhs.code == rhs.code }

    /// `code: reason`, safe to log.
    public var description: String { "\(code): \(reason)" }
}
