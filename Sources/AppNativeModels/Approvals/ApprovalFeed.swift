public import AppNativeJSON

/// `GET {p}/approvals` response: `{"approvals":[…]}`, always written (`contract/routes.md` §3.4).
public struct ApprovalFeed: Sendable, Hashable, ModelDecodable, ModelEncodable {
    /// `nil` = unset, written as `[]` in response encoding.
    public var approvals: [Approval]?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(approvals: [Approval]? = nil) { self.approvals = approvals }

    /// Decodes a feed strictly: any invalid approval fails the whole feed.
    ///
    /// - Throws: ``ModelError`` listing every issue.
    public init(json: JSONValue) throws(ModelError) { self = try Self.decode(json) }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("approvals", approvals, defaultEmpty: ())
        return writer.value
    }

    /// Reads a feed as the app does: invalid approvals are dropped one by one and reported, and
    /// valid ones past the 100th (``ModelLimits/maxApprovalsPerWebApp``) are dropped as `too_large`.
    ///
    /// - Throws: ``ModelError`` only when the envelope is broken (not an object or array, or
    ///   `approvals` not a list).
    public static func decodeDroppingInvalid(_ json: JSONValue) throws(ModelError) -> FeedDecoding<Approval> {
        let context = DecodingContext()
        var elements: [JSONValue] = []
        var path: [PathComponent] = []
        if case .array(let values) = json {
            // A bare array is the list itself, as the reference's callback returns it.
            elements = values
        } else if let reader = Cursor(value: json, path: [], context: context).reader(.camelCase),
            let cursor = reader.cursor("approvals")
        {
            if let values = cursor.value.arrayValue {
                elements = values
                path = cursor.path
            } else {
                context.report(cursor.path, "list_type", "Input should be a valid list", input: cursor.value)
            }
        }
        guard context.issues.isEmpty else { throw ModelError(issues: context.issues) }
        return FeedReader.decode(
            elements, path: path, limit: ModelLimits.maxApprovalsPerWebApp, limitName: "approvals")
    }
}

extension ApprovalFeed: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let approvals = reader.nonNull("approvals") { $0.array { $0.model(Approval.self) } }
        guard reader.isClean else { return nil }
        self.init(approvals: approvals)
    }
}
