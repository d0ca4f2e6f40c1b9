import AppNativeJSON
import AppNativeModels
import Testing

/// `ModelEncoding.forwarded`: a request body as the backend receives it, which is what the Python
/// reference's callback model gives with `model_dump_json(exclude_unset=True)`. Every expected
/// text below is pydantic-core's output for the same input (bmsdna-app-native 0.6.0).
@Suite struct ForwardedEncodingTests {
    /// `text` decoded as `Model` and written as the gateway forwards it.
    func forwarded<Model: ModelDecodable & ModelEncodable>(_ type: Model.Type, _ text: String) throws -> String {
        let value = json(text)
        let model = try Model(json: value)
        let sentKeys = Set(value.objectValue?.keys ?? [])
        return String(decoding: JSONSerializer.serialize(model.jsonValue(.forwarded(sentKeys: sentKeys))), as: UTF8.self)
    }

    static let cases: [(String, String, String)] = [
        // Absent stays absent, a sent null stays null (device registration depends on it).
        ("devices", #"{"device_id":"d1"}"#, #"{"device_id":"d1"}"#),
        ("devices", #"{"user_email":null,"device_id":"d1","push_token":null}"#, #"{"device_id":"d1","push_token":null,"user_email":null}"#),
        ("devices", #"{"device_id":"d1","platform":null,"push_token":"ab"}"#, #"{"device_id":"d1","push_token":"ab","platform":null}"#),
        // Unknown keys are dropped, the model's order is kept.
        ("devices", #"{"extra":1,"platform":"ios","deviceId":"x","device_id":"d1"}"#, #"{"device_id":"d1","platform":"ios"}"#),
        // Floats as Python floats; datetimes normalised.
        ("locations", #"{"device_id":"d","latitude":12,"longitude":-0,"accuracy":1e1}"#,
         #"{"device_id":"d","latitude":12.0,"longitude":0.0,"accuracy":10.0}"#),
        ("locations", #"{"device_id":"d","latitude":47.1,"longitude":8.50,"recorded_at":1700000000000}"#,
         #"{"device_id":"d","latitude":47.1,"longitude":8.5,"recorded_at":"2023-11-14T22:13:20Z"}"#),
        ("locations", #"{"device_id":"d","latitude":0,"longitude":0,"recorded_at":"2026-11-30T08:00:00+00:00"}"#,
         #"{"device_id":"d","latitude":0.0,"longitude":0.0,"recorded_at":"2026-11-30T08:00:00Z"}"#),
        ("locations", #"{"device_id":"d","latitude":0,"longitude":0,"recorded_at":"2026-11-30T08:00:00.5+05:30"}"#,
         #"{"device_id":"d","latitude":0.0,"longitude":0.0,"recorded_at":"2026-11-30T08:00:00.500000+05:30"}"#),
        ("locations", #"{"device_id":"d","latitude":0,"longitude":0,"recorded_at":"2026-11-30T08:00:00.123456789Z"}"#,
         #"{"device_id":"d","latitude":0.0,"longitude":0.0,"recorded_at":"2026-11-30T08:00:00.123456Z"}"#),
        ("locations", #"{"device_id":"d","latitude":0,"longitude":0,"accuracy":null,"recorded_at":null,"user_email":null}"#,
         #"{"device_id":"d","user_email":null,"latitude":0.0,"longitude":0.0,"accuracy":null,"recorded_at":null}"#),
        // Opaque objects: integers stay integers (`-0` is 0), anything else is a float.
        ("notification-actions", #"{"device_id":"d","action":"a","data":{"i":-0,"f":1.0,"e":1E2,"big":1000000000000000000000000000000,"s":"\u00fc","n":null,"l":[1.50,{"x":2e-7}]}}"#,
         #"{"device_id":"d","action":"a","data":{"i":0,"f":1.0,"e":100.0,"big":1000000000000000000000000000000,"s":"ü","n":null,"l":[1.5,{"x":2e-7}]}}"#),
        ("notification-actions", #"{"device_id":"d","action":"a","data":null}"#, #"{"device_id":"d","action":"a","data":null}"#),
        // Defaults the app did not send stay out (exclude_unset), sent ones are written.
        ("widget-actions", #"{"device_id":"d","widget_id":"w","action_id":"a"}"#, #"{"device_id":"d","widget_id":"w","action_id":"a"}"#),
        ("widget-actions", #"{"source":"homeScreen","values":{},"item_id":null,"device_id":"d","widget_id":"w","action_id":"a"}"#,
         #"{"device_id":"d","widget_id":"w","action_id":"a","item_id":null,"values":{},"source":"homeScreen"}"#),
        ("widget-options", #"{"device_id":"d","widget_id":null,"form_id":"f","field_id":"x","query":""}"#,
         #"{"device_id":"d","widget_id":null,"form_id":"f","field_id":"x","query":""}"#),
        ("widget-options", #"{"device_id":"d","widget_id":"w","field_id":"x","context":{"c":7}}"#,
         #"{"device_id":"d","widget_id":"w","field_id":"x","context":{"c":7}}"#),
        ("approval-decisions", #"{"decision":"reject","comment":null,"device_id":"d","approval_id":"p"}"#,
         #"{"device_id":"d","approval_id":"p","decision":"reject","comment":null}"#),
        ("live-activities", #"{"device_id":"d","event":"ended","activity_id":"a","x":true}"#, #"{"device_id":"d","event":"ended","activity_id":"a"}"#),
    ]

    @Test(arguments: cases.indices)
    func writesWhatTheReferenceCallbackModelWrites(_ index: Int) throws {
        let (route, input, expected) = Self.cases[index]
        let output: String
        switch route {
        case "devices": output = try forwarded(DeviceRegistration.self, input)
        case "locations": output = try forwarded(LocationUpdate.self, input)
        case "notification-actions": output = try forwarded(NotificationActionReceived.self, input)
        case "widget-actions": output = try forwarded(WidgetActionReceived.self, input)
        case "widget-options": output = try forwarded(WidgetOptionsRequest.self, input)
        case "approval-decisions": output = try forwarded(ApprovalDecisionReceived.self, input)
        default: output = try forwarded(LiveActivityTokenReceived.self, input)
        }
        #expect(output == expected, "\(route): \(input)")
    }

    /// pydantic-core's float notation: shortest round-trip digits, positional for decimal
    /// exponents −5…15, `e+XX` / `e-X` outside.
    static let floats: [(Double, String)] = [
        (47.1, "47.1"), (12, "12.0"), (0.1 + 0.2, "0.30000000000000004"), (1e308, "1e+308"), (1e-7, "1e-7"),
        (1e-5, "0.00001"), (1.5e-5, "0.000015"), (1e-6, "1e-6"), (1.234e-6, "1.234e-6"), (1e-4, "0.0001"),
        (1e15, "1000000000000000.0"), (9.999e15, "9999000000000000.0"), (1e16, "1e+16"), (1.5e16, "1.5e+16"),
        (123456789012345680, "1.2345678901234568e+17"), (.leastNonzeroMagnitude, "5e-324"), (-0.0, "-0.0"), (0, "0.0"),
        (-2.5e-10, "-2.5e-10"), (123.456, "123.456"), (1234567890123456, "1234567890123456.0"), (100, "100.0"),
        (-90, "-90.0"), (1.7976931348623157e308, "1.7976931348623157e+308"),
    ]

    @Test(arguments: floats.indices)
    func floatsAreWrittenAsPydanticWritesThem(_ index: Int) throws {
        let (double, expected) = Self.floats[index]
        let number = try #require(JSONNumber(double))
        let location = LocationUpdate(deviceID: "d", latitude: JSONNumber(0), longitude: JSONNumber(0), accuracy: number)
        let sent: Set<String> = ["device_id", "latitude", "longitude", "accuracy"]
        let text = String(decoding: JSONSerializer.serialize(location.jsonValue(.forwarded(sentKeys: sent))), as: UTF8.self)
        #expect(text == #"{"device_id":"d","latitude":0.0,"longitude":0.0,"accuracy":"# + expected + "}", "\(double)")
    }

    @Test func otherEncodingsKeepTheLiteral() throws {
        let latitude = try #require(JSONNumber(text: "12"))
        let longitude = try #require(JSONNumber(text: "8.50"))
        let location = LocationUpdate(deviceID: "d", latitude: latitude, longitude: longitude)
        #expect(JSONSerializer.serialize(location.jsonValue(.response)) == Array(#"{"device_id":"d","latitude":12,"longitude":8.50}"#.utf8))
    }
}
