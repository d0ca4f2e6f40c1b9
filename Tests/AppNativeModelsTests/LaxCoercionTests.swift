import AppNativeJSON
@testable import AppNativeModels
import Testing

/// Pydantic v2's lax readings (pydantic-core 2.50, as the Python reference 0.6.0 pins it), each
/// row checked against that pydantic with `TypeAdapter(<type>).validate_json(<input>)`.
@Suite struct LaxCoercionTests {
    /// `nil` expects a failure of that type.
    static let floats: [(String, Double?, String?)] = [
        (#""47.0""#, 47, nil), (#"" 12 ""#, 12, nil), (#""\t12\n""#, 12, nil), (#""\u00a012""#, 12, nil),
        (#""\u300012""#, 12, nil), (#""1_000""#, 1000, nil), (#""1.5_0""#, 1.5, nil), (#""1_.5""#, 1.5, nil),
        (#""+5""#, 5, nil), (#""1e3""#, 1000, nil), (#""1.""#, 1, nil), (#"".5""#, 0.5, nil), (#""-.5""#, -0.5, nil),
        ("true", 1, nil), ("false", 0, nil), ("12", 12, nil),
        // Counter-intuitive: these are floats to pydantic (and refused later by the gateway as non-finite).
        (#""inf""#, .infinity, nil), (#""-Infinity""#, -.infinity, nil), (#""in_f""#, .infinity, nil),
        (#""1e400""#, .infinity, nil),
        // Refused.
        (#""0x10""#, nil, "float_parsing"), (#""1,5""#, nil, "float_parsing"), (#""""#, nil, "float_parsing"),
        (#""  ""#, nil, "float_parsing"), (#""１２""#, nil, "float_parsing"), (#""1__0""#, nil, "float_parsing"),
        (#""_1""#, nil, "float_parsing"), (#""1_""#, nil, "float_parsing"), (#""1e""#, nil, "float_parsing"),
        (#"".""#, nil, "float_parsing"), (#""\u200b12""#, nil, "float_parsing"), (#""\u001c12""#, nil, "float_parsing"),
        ("null", nil, "float_type"), ("[1]", nil, "float_type"), ("{}", nil, "float_type"),
    ]

    @Test(arguments: floats) func floatReading(_ input: String, _ expected: Double?, _ failure: String?) {
        switch LaxReading.float(json(input)) {
        case .success(let value):
            #expect(value == expected, "\(input)")
            #expect(failure == nil, "\(input) should fail with \(failure ?? "")")
        case .failure(let error):
            #expect(error.type == failure, "\(input)")
        }
    }

    @Test func nanStringIsAFloat() throws {
        let value = try LaxReading.float(json(#""nan""#)).get()
        #expect(value.isNaN)
    }

    static let ints: [(String, Int?, String?)] = [
        ("12", 12, nil), ("1.0", 1, nil), ("1e3", 1000, nil), ("true", 1, nil), ("false", 0, nil),
        (#""12""#, 12, nil), (#"" 12 ""#, 12, nil), (#""1_000""#, 1000, nil), (#""1.0""#, 1, nil), (#""1.00""#, 1, nil),
        (#""  1.0 ""#, 1, nil), (#""1_0.0""#, 10, nil), (#""0_1""#, 1, nil), (#""+5""#, 5, nil), (#""-0""#, 0, nil),
        (#""01""#, 1, nil), (#""\u00a012""#, 12, nil),
        ("1.5", nil, "int_from_float"), ("1e20", nil, "int_parsing_size"),
        (#""1.5""#, nil, "int_parsing"), (#""1e3""#, nil, "int_parsing"), (#""1.""#, nil, "int_parsing"),
        (#"".5""#, nil, "int_parsing"), (#""inf""#, nil, "int_parsing"), (#""1.0_0""#, nil, "int_parsing"),
        (#""1__0""#, nil, "int_parsing"), (#""+-1""#, nil, "int_parsing"), (#""""#, nil, "int_parsing"),
        ("null", nil, "int_type"), ("[1]", nil, "int_type"),
    ]

    @Test(arguments: ints) func intReading(_ input: String, _ expected: Int?, _ failure: String?) {
        switch LaxReading.int(json(input)) {
        case .success(let value):
            #expect(value == expected.map(LaxReading.Integer.exact), "\(input)")
            #expect(failure == nil, "\(input) should fail with \(failure ?? "")")
        case .failure(let error):
            #expect(error.type == failure, "\(input)")
        }
    }

    @Test func integersBeyondInt64AreOnlyJudgedByBounds() {
        #expect(LaxReading.int(json("99999999999999999999")) == .success(.outOfRange(1e20)))
        #expect(LaxReading.int(json(#""99999999999999999999""#)) == .success(.outOfRange(1e20)))
    }

    static let bools: [(String, Bool?, String?)] = [
        ("true", true, nil), ("false", false, nil), ("1", true, nil), ("0", false, nil), ("1.0", true, nil),
        ("0.0", false, nil), ("1e0", true, nil),
        (#""true""#, true, nil), (#""TRUE""#, true, nil), (#""Yes""#, true, nil), (#""y""#, true, nil),
        (#""on""#, true, nil), (#""t""#, true, nil), (#""1""#, true, nil),
        (#""false""#, false, nil), (#""no""#, false, nil), (#""n""#, false, nil), (#""off""#, false, nil),
        (#""f""#, false, nil), (#""0""#, false, nil),
        // An integral number other than 0 and 1 is `bool_parsing`, a fractional one `bool_type`.
        ("2", nil, "bool_parsing"), ("-1", nil, "bool_parsing"), ("2.0", nil, "bool_parsing"), ("0.5", nil, "bool_type"),
        (#"" true ""#, nil, "bool_parsing"), (#""""#, nil, "bool_parsing"), (#""1.0""#, nil, "bool_parsing"),
        (#""2""#, nil, "bool_parsing"), ("null", nil, "bool_type"), ("[]", nil, "bool_type"),
    ]

    @Test(arguments: bools) func boolReading(_ input: String, _ expected: Bool?, _ failure: String?) {
        switch LaxReading.bool(json(input)) {
        case .success(let value):
            #expect(value == expected, "\(input)")
            #expect(failure == nil, "\(input) should fail with \(failure ?? "")")
        case .failure(let error):
            #expect(error.type == failure, "\(input)")
        }
    }

    /// Input, the ISO rendering on success, or the failure's type and message.
    static let datetimes: [(String, String?, String?)] = [
        (#""2023-11-14T22:13:20Z""#, "2023-11-14T22:13:20Z", nil),
        (#""2023-11-14T22:13:20+0200""#, "2023-11-14T22:13:20+02:00", nil),
        (#""2023-11-14t22:13:20z""#, "2023-11-14T22:13:20Z", nil),
        (#""2023-11-14_22:13:20""#, "2023-11-14T22:13:20", nil),
        (#""2023-11-14""#, "2023-11-14T00:00:00", nil),
        (#""1700000000""#, "2023-11-14T22:13:20Z", nil), (#""+1700000000""#, "2023-11-14T22:13:20Z", nil),
        (#""1700000000.5""#, "2023-11-14T22:13:20.500000Z", nil), (#""1700000000000""#, "2023-11-14T22:13:20Z", nil),
        ("1700000000", "2023-11-14T22:13:20Z", nil), ("1700000000000", "2023-11-14T22:13:20Z", nil),
        ("20000000001", "1970-08-20T11:33:20.001000Z", nil),
        (#""2023-11-14T22:13:20+02""#, nil,
            "datetime_from_date_parsing: Input should be a valid datetime or date, unexpected extra characters at the end of the input"),
        (#""2023-11-14T24:00:00Z""#, nil,
            "datetime_from_date_parsing: Input should be a valid datetime or date, unexpected extra characters at the end of the input"),
        (#""2023-11-14T23:59:60Z""#, nil,
            "datetime_from_date_parsing: Input should be a valid datetime or date, unexpected extra characters at the end of the input"),
        (#"" 1700000000""#, nil, "datetime_from_date_parsing: Input should be a valid datetime or date, invalid character in year"),
        (#""20231114T221320Z""#, nil,
            "datetime_from_date_parsing: Input should be a valid datetime or date, invalid date separator, expected `-`"),
        (#""""#, nil, "datetime_from_date_parsing: Input should be a valid datetime or date, input is too short"),
        (#""1e9""#, nil, "datetime_from_date_parsing: Input should be a valid datetime or date, input is too short"),
        (#""2023-13-01""#, nil,
            "datetime_from_date_parsing: Input should be a valid datetime or date, month value is outside expected range of 1-12"),
        (#""2023-02-30T00:00:00Z""#, nil,
            "datetime_from_date_parsing: Input should be a valid datetime or date, day value is outside expected range"),
        (#""2023-1a-14""#, nil, "datetime_from_date_parsing: Input should be a valid datetime or date, invalid character in month"),
        (#""0000-01-01T00:00:00Z""#, nil, "datetime_parsing: Input should be a valid datetime, year 0 is out of range"),
        ("1e20", nil, "datetime_parsing: Input should be a valid datetime, dates after 9999 are not supported as unix timestamps"),
        ("-1e20", nil, "datetime_parsing: Input should be a valid datetime, dates before 0000 are not supported as unix timestamps"),
        ("true", nil, "datetime_type: Input should be a valid datetime"),
        ("null", nil, "datetime_type: Input should be a valid datetime"),
    ]

    @Test(arguments: datetimes) func datetimeReading(_ input: String, _ iso: String?, _ failure: String?) {
        switch Timestamp.lax(json(input)) {
        case .success(let timestamp):
            #expect(timestamp.iso8601 == iso, "\(input)")
            #expect(failure == nil, "\(input) should fail with \(failure ?? "")")
        case .failure(let error):
            #expect("\(error.type): \(error.message)" == failure, "\(input)")
        }
    }

    static let webURLs: [(String, Bool)] = [
        ("https://example.com/x", true), ("https://user@example.com/x", true), ("https://user:pw@example.com/", true),
        ("HTTPS://EXAMPLE.COM", true), (" https://example.com ", true), ("https://exa\tmple.com", true),
        ("https://@/", true), ("https://[::1]/", true),
        ("http://example.com", false), ("https:///path", false), ("https://", false), ("https:example.com", false),
        ("", false), ("/tile", false), ("javascript:alert(1)", false), ("https://[::1/", false),
    ]

    /// `urllib.parse.urlsplit(url.strip())` with scheme `https` and a non-empty netloc.
    @Test(arguments: webURLs) func webURLRule(_ url: String, _ isAccepted: Bool) {
        #expect(WebData.isHTTPSWithHost(url) == isAccepted, "\(url)")
    }

    @Test func floatFieldsAreWrittenAsPythonFloats() throws {
        let update = try LocationUpdate(
            json: json(#"{"device_id":"d","latitude":"47","longitude":" 8.5 ","accuracy":true,"recorded_at":"1700000000"}"#))
        #expect(update.latitude.text == "47.0")
        #expect(update.longitude.text == "8.5")
        #expect(update.accuracy?.text == "1.0")
        #expect(update.recordedAt?.iso8601 == "2023-11-14T22:13:20Z")
    }

    @Test func boundsComeBeforeFiniteness() {
        let detail = issues(LocationUpdate.self, json(#"{"device_id":"d","latitude":"nan","longitude":"-inf","accuracy":"inf"}"#))
        #expect(detail.map(\.type) == ["less_than_equal", "greater_than_equal", "finite_number"])
        #expect(detail.map(\.message).first == "Input should be less than or equal to 90")
    }

    @Test func aBodyThatIsNotAnObjectIsModelAttributesType() {
        for body in ["[]", "null", #""x""#, "12"] {
            #expect(issues(LocationUpdate.self, json(body)).map(\.type) == ["model_attributes_type"], "\(body)")
        }
    }

    @Test func emptyAndSyntaxErrorBodiesAreShapedAsFastAPIShapesThem() throws {
        let decoder = ModelDecoder()
        #expect(throws: ModelError.self) { try decoder.parse([]) }
        do {
            _ = try decoder.parse([])
        } catch {
            #expect(error.detailBody() == ["detail": [["type": "missing", "loc": ["body"], "msg": "Field required", "input": .null]]])
        }
        do {
            _ = try decoder.parse(Array(#"{"é":1,}"#.utf8))
        } catch {
            let element = error.detailBody()["detail"]?.arrayValue?.first
            #expect(element?["input"] == .object([:]))
            // Python counts characters, not bytes: `é` is two bytes but one position, so the `}`
            // after the trailing comma is at 7 (byte 8).
            #expect(element?["loc"] == ["body", 7])
        }
    }

    /// `json.detect_encoding`: a UTF-8 mark, UTF-16 and UTF-32 (either order, with or without a mark).
    @Test func bodiesInThePythonEncodingsAreRead() throws {
        let text = #"{"device_id":"d","latitude":1,"longitude":2}"#
        let utf16LE = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let utf16BE = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let utf32LE = text.unicodeScalars.flatMap { scalar in (0..<4).map { UInt8((scalar.value >> (8 * $0)) & 0xFF) } }
        let bodies: [[UInt8]] = [
            [0xEF, 0xBB, 0xBF] + Array(text.utf8), [0xFF, 0xFE] + utf16LE, [0xFE, 0xFF] + utf16BE, utf16LE, utf16BE,
            [0xFF, 0xFE, 0, 0] + utf32LE, utf32LE,
        ]
        for body in bodies {
            let update = try ModelDecoder().decode(LocationUpdate.self, from: body)
            #expect(update.deviceID == "d")
        }
        #expect(throws: ModelError.self) { try ModelDecoder().parse([0xFF, 0xFE, 0x7B]) }
    }
}

/// The reference's smart unions: which member a JSON value lands in decides how it is written.
@Suite struct LaxUnionTests {
    @Test func fieldPrefillNumbersAreFloatsAndFormBoundsKeepTheirKind() throws {
        let field = try #require(
            Cursor(value: json(#"{"id":"n","label":"N","type":"number","value":12,"min":"1","max":2.5}"#), path: [],
                context: DecodingContext()
            ).model(ActionField.self))
        #expect(field.value == .number(JSONNumber(text: "12.0")!), "str | float | bool: 12 is the float 12.0")
        #expect(field.min == JSONNumber(1), "int | float: \"1\" is the integer 1")
        #expect(field.max == JSONNumber(text: "2.5"))
    }

    @Test func scalarValuesTakeBooleansAsIntegers() {
        let context = DecodingContext()
        #expect(Cursor(value: .bool(true), path: [], context: context).scalar() == .number(JSONNumber(1)))
        #expect(Cursor(value: json(#""12""#), path: [], context: context).scalar() == .string("12"))
        #expect(context.issues.isEmpty)
    }
}
