public import AppNativeJSON

/// One pending approval of an approvals feed (`contract/models.md` §4).
public struct Approval: Sendable, Hashable, ModelDecodable, ModelEncodable {
    /// Whether the decision screen asks for a comment.
    public enum CommentRequirement: String, Sendable, Hashable, CaseIterable, WireEnum {
        case none, optional, required
    }

    /// Comes back as `approval_id`.
    public var id: String
    public var title: String
    public var subtitle: String?
    public var category: String?
    /// Display text, not a number.
    public var amount: String?
    public var requester: String?
    public var createdAt: Timestamp?
    public var dueAt: Timestamp?
    public var urgent: Bool?
    public var icon: String?
    public var details: [ApprovalDetail]?
    public var path: String?
    /// `[0.6]`; also read as `conversation_id`.
    public var conversationId: String?
    /// App default "Approve".
    public var approveLabel: String?
    /// App default "Reject".
    public var rejectLabel: String?
    /// App default `none`.
    public var approveComment: CommentRequirement?
    /// App default `optional`.
    public var rejectComment: CommentRequirement?
    /// UX only, never a security check.
    public var biometric: Bool?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(
        id: String, title: String, subtitle: String? = nil, category: String? = nil, amount: String? = nil,
        requester: String? = nil, createdAt: Timestamp? = nil, dueAt: Timestamp? = nil, urgent: Bool? = nil,
        icon: String? = nil, details: [ApprovalDetail]? = nil, path: String? = nil, conversationId: String? = nil,
        approveLabel: String? = nil, rejectLabel: String? = nil, approveComment: CommentRequirement? = nil,
        rejectComment: CommentRequirement? = nil, biometric: Bool? = nil
    ) {
        self.id = id
        self.title = title
        self.subtitle = subtitle
        self.category = category
        self.amount = amount
        self.requester = requester
        self.createdAt = createdAt
        self.dueAt = dueAt
        self.urgent = urgent
        self.icon = icon
        self.details = details
        self.path = path
        self.conversationId = conversationId
        self.approveLabel = approveLabel
        self.rejectLabel = rejectLabel
        self.approveComment = approveComment
        self.rejectComment = rejectComment
        self.biometric = biometric
    }

    /// Decodes one approval (camelCase, snake_case accepted).
    ///
    /// - Throws: ``ModelError`` listing every issue.
    public init(json: JSONValue) throws(ModelError) { self = try Self.decode(json) }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("id", id)
        writer.set("title", title)
        writer.set("subtitle", subtitle)
        writer.set("category", category)
        writer.set("amount", amount)
        writer.set("requester", requester)
        writer.set("createdAt", createdAt?.iso8601)
        writer.set("dueAt", dueAt?.iso8601)
        writer.set("urgent", urgent)
        writer.set("icon", icon)
        writer.set("details", details)
        writer.set("path", path)
        writer.set("conversationId", conversationId)
        writer.set("approveLabel", approveLabel)
        writer.set("rejectLabel", rejectLabel)
        writer.set("approveComment", approveComment)
        writer.set("rejectComment", rejectComment)
        writer.set("biometric", biometric)
        return writer.value
    }
}

extension Approval: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let id = reader.required("id") { $0.nonEmptyString() }
        let title = reader.required("title") { $0.nonEmptyString() }
        let subtitle = reader.optional("subtitle") { $0.string() }
        let category = reader.optional("category") { $0.string() }
        let amount = reader.optional("amount") { $0.string() }
        let requester = reader.optional("requester") { $0.string() }
        let createdAt = reader.optional("createdAt") { $0.timestamp() }
        let dueAt = reader.optional("dueAt") { $0.timestamp() }
        let urgent = reader.optional("urgent") { $0.bool() }
        let icon = reader.optional("icon") { $0.string() }
        let details = reader.optional("details") { $0.array { $0.model(ApprovalDetail.self) } }
        let path = reader.optional("path") { $0.string() }
        let conversationId = reader.optional("conversationId") { $0.string() }
        let approveLabel = reader.optional("approveLabel") { $0.string() }
        let rejectLabel = reader.optional("rejectLabel") { $0.string() }
        let approveComment = reader.optional("approveComment") { $0.enumeration(CommentRequirement.self) }
        let rejectComment = reader.optional("rejectComment") { $0.enumeration(CommentRequirement.self) }
        let biometric = reader.optional("biometric") { $0.bool() }
        guard reader.isClean, let id, let title else { return nil }
        self.init(
            id: id, title: title, subtitle: subtitle, category: category, amount: amount, requester: requester,
            createdAt: createdAt, dueAt: dueAt, urgent: urgent, icon: icon, details: details, path: path,
            conversationId: conversationId, approveLabel: approveLabel, rejectLabel: rejectLabel,
            approveComment: approveComment, rejectComment: rejectComment, biometric: biometric)
    }
}
