public import AppNativeJSON

extension ModelError {
    /// The error response body of `contract/routes.md` §0.
    ///
    /// `.invalid` gives FastAPI's 422 shape `{"detail":[{"type","loc","msg","input"}, …]}` with
    /// every `loc` starting at `root`; `.bodyTooLarge` gives `{"detail":"Request body too large"}`;
    /// `.unknownUploadReference` gives `{"detail":{"message":"Unknown or expired upload reference","refs":[…]}}`;
    /// `.contextNotObject` gives `{"detail":"`context` must be a JSON object"}`.
    ///
    /// - Parameter root: the first `loc` element: `"body"` for request bodies, `nil` for a
    ///   definition validated on its own (native surfaces, feeds).
    public func detailBody(root: String? = "body") -> JSONValue {
        if code == .bodyTooLarge {
            return ["detail": "Request body too large"]
        }
        if code == .unknownUploadReference {
            return [
                "detail": [
                    "message": "Unknown or expired upload reference",
                    "refs": .array(unknownReferences.map(JSONValue.string)),
                ]
            ]
        }
        if code == .contextNotObject {
            return ["detail": "`context` must be a JSON object"]
        }
        return ["detail": .array(issues.map { $0.detailElement(root: root) })]
    }

    /// ``detailBody(root:)`` as compact UTF-8 JSON, ready to send with ``httpStatus``.
    public func responseBytes(root: String? = "body") -> [UInt8] {
        JSONSerializer.serialize(detailBody(root: root))
    }
}
