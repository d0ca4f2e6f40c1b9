public import AppNativeJSON

/// A `map` content block (`contract/models.md` §3.4).
public struct MapBlock: Sendable, Hashable, ModelEncodable {
    /// −90…90.
    public var latitude: JSONNumber
    /// −180…180.
    public var longitude: JSONNumber
    public var name: String?
    /// Metres, > 0.
    public var span: JSONNumber?
    /// Points, > 0.
    public var height: JSONNumber?

    /// Memberwise, unchecked: rules are enforced when decoding untrusted JSON, not on values built in code.
    public init(latitude: JSONNumber, longitude: JSONNumber, name: String? = nil, span: JSONNumber? = nil, height: JSONNumber? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.name = name
        self.span = span
        self.height = height
    }

    /// The JSON form (see ``ModelEncodable/jsonValue(_:)``).
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("latitude", latitude)
        writer.set("longitude", longitude)
        writer.set("name", name)
        writer.set("span", span)
        writer.set("height", height)
        return writer.value
    }
}

extension MapBlock: ObjectDecodable {
    init?(_ reader: ObjectReader) {
        let latitude = reader.required("latitude") { $0.coordinate(limit: 90) }
        let longitude = reader.required("longitude") { $0.coordinate(limit: 180) }
        let name = reader.optional("name") { $0.string() }
        let span = reader.optional("span") { $0.number(greaterThan: 0) }
        let height = reader.optional("height") { $0.number(greaterThan: 0) }
        guard reader.isClean, let latitude, let longitude else { return nil }
        self.init(latitude: latitude, longitude: longitude, name: name, span: span, height: height)
    }
}
