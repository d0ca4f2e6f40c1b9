public import AppNativeJSON

/// `POST {p}/approval-decisions` response (`routes.md` §3.5).
public struct ApprovalDecisionResult: Sendable, Hashable, ModelEncodable {
    /// `false` = refused, the approval stays. `nil` = unset, written as `true`.
    public var ok: Bool?
    /// App default text: Approved / Rejected.
    public var message: String?
    public var style: ResultStyle?
    /// When set (even `[]`) replaces all pending approvals; absent removes just the decided one.
    public var approvals: [Approval]?

    public init(ok: Bool? = nil, message: String? = nil, style: ResultStyle? = nil, approvals: [Approval]? = nil) {
        self.ok = ok
        self.message = message
        self.style = style
        self.approvals = approvals
    }

    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("ok", ok, default: true)
        writer.set("message", message)
        writer.set("style", style)
        writer.set("approvals", approvals)
        return writer.value
    }
}
