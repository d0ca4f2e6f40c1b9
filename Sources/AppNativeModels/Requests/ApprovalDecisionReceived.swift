public import AppNativeJSON

/// `POST {p}/approval-decisions` (`contract/routes.md` §2.6): the user approved or rejected an approval.
public struct ApprovalDecisionReceived: Sendable, Hashable, ModelDecodable, ModelEncodable {
    /// The decision; any other value is 422.
    public enum Decision: String, Sendable, Hashable, CaseIterable, WireEnum {
        case approve
        case reject
    }

    public var deviceID: String
    /// The approval's `id`. Client input: the host checks the user may decide it.
    public var approvalID: String
    public var decision: Decision
    public var comment: String?
    /// Unverified client hint.
    public var userEmail: String?

    /// A decision.
    public init(
        deviceID: String, approvalID: String, decision: Decision, comment: String? = nil, userEmail: String? = nil
    ) {
        self.deviceID = deviceID
        self.approvalID = approvalID
        self.decision = decision
        self.comment = comment
        self.userEmail = userEmail
    }

    /// Decodes a snake_case request body.
    ///
    /// - Throws: ``ModelError`` listing every issue.
    public init(json: JSONValue) throws(ModelError) { self = try Self.decode(json) }

    /// The snake_case body.
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("device_id", deviceID)
        writer.set("approval_id", approvalID)
        writer.set("decision", decision)
        writer.set("comment", comment)
        writer.set("user_email", userEmail)
        return writer.value
    }
}

extension ApprovalDecisionReceived: ObjectDecodable {
    static var keyStyle: KeyStyle { .snakeCase }

    init?(_ reader: ObjectReader) {
        let deviceID = reader.required("device_id") { $0.string() }
        let approvalID = reader.required("approval_id") { $0.string() }
        let decision = reader.required("decision") { $0.enumeration(Decision.self) }
        let comment = reader.optional("comment") { $0.string() }
        let userEmail = reader.optional("user_email") { $0.string() }
        guard reader.isClean, let deviceID, let approvalID, let decision else { return nil }
        self.init(deviceID: deviceID, approvalID: approvalID, decision: decision, comment: comment, userEmail: userEmail)
    }
}
