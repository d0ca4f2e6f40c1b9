public import AppNativeJSON

/// `POST {p}/locations` (`contract/routes.md` §2.2): one location fix from a device.
public struct LocationUpdate: Sendable, Hashable, ModelDecodable, ModelEncodable {
    public var deviceID: String
    /// Unverified client hint.
    public var userEmail: String?
    /// Degrees, −90…90 inclusive; read as the reference's `float` (`"47"` is `47.0`).
    public var latitude: JSONNumber
    /// Degrees, −180…180 inclusive.
    public var longitude: JSONNumber
    /// Metres.
    public var accuracy: JSONNumber?
    public var recordedAt: Timestamp?

    /// A location update. The caller is trusted to pass in-range coordinates.
    public init(
        deviceID: String, userEmail: String? = nil, latitude: JSONNumber, longitude: JSONNumber,
        accuracy: JSONNumber? = nil, recordedAt: Timestamp? = nil
    ) {
        self.deviceID = deviceID
        self.userEmail = userEmail
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
        self.recordedAt = recordedAt
    }

    /// Decodes a snake_case request body; out-of-range coordinates are 422.
    ///
    /// - Throws: ``ModelError`` listing every issue.
    public init(json: JSONValue) throws(ModelError) { self = try Self.decode(json) }

    /// The snake_case body.
    public func jsonValue(_ encoding: ModelEncoding) -> JSONValue {
        var writer = ObjectWriter(encoding)
        writer.set("device_id", deviceID)
        writer.set("user_email", userEmail)
        writer.set("latitude", float: latitude)
        writer.set("longitude", float: longitude)
        writer.set("accuracy", float: accuracy)
        writer.set("recorded_at", recordedAt?.iso8601)
        return writer.value
    }
}

extension LocationUpdate: ObjectDecodable {
    static var keyStyle: KeyStyle { .snakeCase }

    init?(_ reader: ObjectReader) {
        let deviceID = reader.required("device_id") { $0.string() }
        let userEmail = reader.optional("user_email") { $0.string() }
        let latitude = reader.required("latitude") { $0.coordinate(limit: 90) }
        let longitude = reader.required("longitude") { $0.coordinate(limit: 180) }
        let accuracy = reader.optional("accuracy") { $0.number() }
        let recordedAt = reader.optional("recorded_at") { $0.timestamp() }
        guard reader.isClean, let deviceID, let latitude, let longitude else { return nil }
        self.init(
            deviceID: deviceID, userEmail: userEmail, latitude: latitude, longitude: longitude, accuracy: accuracy,
            recordedAt: recordedAt)
    }
}

extension Cursor {
    /// A number within `-limit...limit` (latitude 90, longitude 180).
    func coordinate(limit: Double) -> JSONNumber? { number(atLeast: -limit, atMost: limit) }
}
