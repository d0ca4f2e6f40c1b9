public import AppNativeJSON

/// `POST {p}/approval-decisions` response (`contract/routes.md` §3.5).
public struct ApprovalDecisionResult: Sendable, Hashable, ModelDecodable, ModelEncodable {
    /// `false` = refused, the approval stays. `nil` = unset, written as `true`.
    public var ok: Bool?
    /// App default text: Approved / Rejected.
    public var message: String?
    public var style: ResultStyle?
    /// When set (even `[]`) replaces all pending approvals; absent removes just the decided one.
    public var approvals: [Approval]?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(ok: Bool? = nil, message: String? = nil, style: ResultStyle? = nil, approvals: [Approval]? = nil) {
        self.ok = ok
        self.message = message
        self.style = style
        self.approvals = approvals
    }

    /// Decodes a result a backend returned, so the gateway relays only what the app can read.
    ///
    /// A JSON `null` is the default result, as the reference's callback returning `None` is.
    ///
    /// - Throws: ``ModelError`` listing every issue.
    public init(json: JSONValue) throws(ModelError) {
        self = try Self.decodeResult(json, default: Self())
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.setResult(ok: ok, message: message, style: style)
        writer.set("approvals", approvals)
        return writer.value
    }
}

extension ApprovalDecisionResult: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let ok = reader.nonNull("ok") { $0.bool() }
        let message = reader.optional("message") { $0.string() }
        let style = reader.optional("style") { $0.enumeration(ResultStyle.self) }
        let approvals = reader.optional("approvals") { $0.array { $0.model(Approval.self) } }
        guard reader.isClean else { return nil }
        self.init(ok: ok, message: message, style: style, approvals: approvals)
    }
}
