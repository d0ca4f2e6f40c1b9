public import AppNativeJSON

/// One entry of a `news` widget (`contract/models.md` §1.2).
public struct NewsItem: Sendable, Hashable, ModelEncodable {
    public var id: String
    public var title: String
    public var text: String?
    /// Absolute or relative; not validated.
    public var imageUrl: String?
    public var path: String?
    public var date: Timestamp?
    public var caption: String?
    public var channels: [String]?
    /// The singular spelling the app also understands. The Python model drops it; it is kept
    /// here so a feed relayed through the gateway does not lose what the app would show.
    public var channel: String?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(
        id: String, title: String, text: String? = nil, imageUrl: String? = nil, path: String? = nil,
        date: Timestamp? = nil, caption: String? = nil, channels: [String]? = nil, channel: String? = nil
    ) {
        self.id = id
        self.title = title
        self.text = text
        self.imageUrl = imageUrl
        self.path = path
        self.date = date
        self.caption = caption
        self.channels = channels
        self.channel = channel
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("id", id)
        writer.set("title", title)
        writer.set("text", text)
        writer.set("imageUrl", imageUrl)
        writer.set("path", path)
        writer.set("date", date?.iso8601)
        writer.set("caption", caption)
        writer.set("channels", channels)
        writer.set("channel", channel)
        return writer.value
    }
}

extension NewsItem: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let id = reader.required("id") { $0.nonEmptyString() }
        let title = reader.required("title") { $0.nonEmptyString() }
        let text = reader.optional("text") { $0.string() }
        let imageUrl = reader.optional("imageUrl") { $0.string() }
        let path = reader.optional("path") { $0.string() }
        let date = reader.optional("date") { $0.timestamp() }
        let caption = reader.optional("caption") { $0.string() }
        let channels = reader.optional("channels") { $0.strings() }
        let channel = reader.optional("channel") { $0.string() }
        guard reader.isClean, let id, let title else { return nil }
        self.init(
            id: id, title: title, text: text, imageUrl: imageUrl, path: path, date: date, caption: caption,
            channels: channels, channel: channel)
    }
}
