public import AppNativeJSON

/// The text parts of `POST {p}/documents` (`contract/routes.md` §2.8, `contract/models.md` §7), as passed to the
/// host callback next to the file bytes.
///
/// Built from already-split multipart text parts; the file's size cap (413) is the upload
/// reader's job, applied as the file arrives.
public struct DocumentMetadata: Sendable, Hashable {
    public var deviceID: String
    /// Unverified client hint; an empty part reads as absent.
    public var userEmail: String?
    /// Free label (`scan`, `signature`, `receipt`, `form` for native forms).
    public var kind: String?
    /// Per-file UUID; the app re-sends it after a failure, so the callback must be idempotent on it.
    public var uploadID: String?
    public var formID: String?
    public var fieldID: String?
    /// The native form's opaque context, parsed.
    public var context: JSONObject?
    /// The file part's `filename`, sanitised (``sanitizedFilename(_:)``).
    public var filename: String
    /// The part's claimed content type (untrusted), `application/octet-stream` by default.
    public var contentType: String

    /// Metadata from values the caller has already checked.
    public init(
        deviceID: String, userEmail: String? = nil, kind: String? = nil, uploadID: String? = nil,
        formID: String? = nil, fieldID: String? = nil, context: JSONObject? = nil, filename: String,
        contentType: String = "application/octet-stream"
    ) {
        self.deviceID = deviceID
        self.userEmail = userEmail
        self.kind = kind
        self.uploadID = uploadID
        self.formID = formID
        self.fieldID = fieldID
        self.context = context
        self.filename = filename
        self.contentType = contentType
    }

    /// Validates the multipart text parts in the contract's order.
    ///
    /// - Parameters:
    ///   - textParts: text part values by part name (the last occurrence of a name, as the
    ///     reference's form parser keeps it).
    ///   - fileName: the `filename` parameter of the `file` part; `nil` when there is no file part
    ///     or it carries no filename.
    ///   - fileContentType: the `file` part's `Content-Type`, if any.
    /// - Throws: ``ModelError``: `.invalid` with `missing` issues at `file` / `device_id`
    ///   (an empty `device_id` counts as missing); then `.contextNotObject` when `context` is
    ///   present, not blank, and not a JSON object.
    public init(textParts: [String: String], fileName: String?, fileContentType: String?) throws(ModelError) {
        let issues = Self.requiredPartIssues(textParts: textParts, fileName: fileName)
        let deviceID = textParts["device_id"] ?? ""
        guard issues.isEmpty, let fileName else { throw ModelError(issues: issues) }
        let context = try textParts["context"].flatMap { text throws(ModelError) in try Self.context(text) }
        func nonEmpty(_ name: String) -> String? {
            guard let value = textParts[name], !value.isEmpty else { return nil }
            return value
        }
        self.init(
            deviceID: deviceID, userEmail: nonEmpty("user_email"), kind: nonEmpty("kind"),
            uploadID: nonEmpty("upload_id"), formID: nonEmpty("form_id"), fieldID: nonEmpty("field_id"),
            context: context, filename: Self.sanitizedFilename(fileName),
            contentType: fileContentType ?? "application/octet-stream")
    }

    /// The refusal of an upload with no parts at all (a body that is not `multipart/form-data`):
    /// `file` and `device_id` missing, as the initialiser reports them.
    public static var missingRequiredParts: ModelError {
        ModelError(issues: requiredPartIssues(textParts: [:], fileName: nil))
    }

    /// What is wrong with the required parts: `file` (a file part) and a non-empty `device_id`.
    private static func requiredPartIssues(textParts: [String: String], fileName: String?) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        if fileName == nil {
            if let text = textParts["file"] {
                // A `file` part without a filename is a text field: FastAPI's UploadFile check.
                issues.append(
                    ValidationIssue(
                        path: ["file"], message: "Value error, Expected UploadFile, received: <class 'str'>", type: "value_error",
                        input: .string(text)))
            } else {
                issues.append(ValidationIssue(path: ["file"], message: "Field required", type: "missing", input: nil))
            }
        }
        if (textParts["device_id"] ?? "").isEmpty {
            issues.append(ValidationIssue(path: ["device_id"], message: "Field required", type: "missing", input: nil))
        }
        return issues
    }

    /// The `context` part's rule on its own (for readers that check it as soon as the part ends):
    /// blank or whitespace is absent (`nil`); anything else must be a JSON object.
    ///
    /// - Throws: ``ModelError`` `.contextNotObject`.
    public static func context(_ text: String) throws(ModelError) -> JSONObject? {
        guard !text.allSatisfy(\.isWhitespace) else { return nil }
        guard let object = (try? JSONParser().parse(text))?.objectValue else {
            throw ModelError(.contextNotObject, reason: "the context part is not a JSON object")
        }
        return object
    }

    /// The name used when nothing usable is left of a client's filename.
    public static let fallbackFilename = "upload"

    /// The last path component of a client-supplied file name, never a path (`contract/routes.md` §2.8).
    ///
    /// The Python reference's rule (`PurePosixPath(name.replace("\\", "/")).name`): every `\`
    /// counts as `/`, empty and `.` components are dropped, and when nothing or `..` is left the
    /// name is `upload`: `../../etc/passwd` → `passwd`, `C:\temp\scan.jpg` → `scan.jpg`,
    /// `x/.` → `x`, `a/..` → `upload`.
    /// Separators are matched as Unicode scalars, not characters: a `/` followed by a combining
    /// mark is still a separator (as it is to every file system).
    public static func sanitizedFilename(_ name: String) -> String {
        let components = name.unicodeScalars.split(omittingEmptySubsequences: true) { $0 == "/" || $0 == "\\" }
            .map { String(String.UnicodeScalarView($0)) }
            .filter { $0 != "." }
        guard let last = components.last, last != ".." else { return fallbackFilename }
        return last
    }
}

