import AppNativeModels

/// Size caps of the native routes, applied before anything is decoded.
public struct NativeRouteLimits: Sendable, Hashable {
    /// The 25 MiB default document cap of contract/routes.md §2.8.
    public static let defaultMaxDocumentBytes = 26_214_400
    /// The 1 MiB default JSON body cap (`ModelDecoder.defaultMaxBodyBytes`).
    public static let defaultMaxJSONBodyBytes = ModelDecoder.defaultMaxBodyBytes

    /// Largest JSON request body; longer is 413 `{"detail":"Request body too large"}`.
    public var maxJSONBodyBytes: Int
    /// Largest document file (`max_bytes`); exactly this many bytes are accepted, one more is
    /// 413 `{"detail":"Document too large"}`. The file is held in memory up to this size.
    public var maxDocumentBytes: Int

    /// - Parameters:
    ///   - maxJSONBodyBytes: JSON body cap (default `ModelDecoder.defaultMaxBodyBytes`, 1 MiB).
    ///   - maxDocumentBytes: document cap (default 25 MiB).
    public init(maxJSONBodyBytes: Int = defaultMaxJSONBodyBytes, maxDocumentBytes: Int = defaultMaxDocumentBytes) {
        precondition(maxJSONBodyBytes >= 0 && maxDocumentBytes >= 0, "NativeRouteLimits: negative cap")
        self.maxJSONBodyBytes = maxJSONBodyBytes
        self.maxDocumentBytes = maxDocumentBytes
    }
}
