/// Where a checked request goes: the facts the engine needs to configure the transfer.
struct OutboundTarget: Sendable {
    var isCleartext: Bool
    var host: String
    var port: Int

    /// `host:port`, the only part of a URL that error reasons mention.
    var origin: String { "\(host):\(port)" }
}
