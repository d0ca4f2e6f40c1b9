import AppNativeJSON
import AppNativeModels
import Testing

/// Datetimes of `contract/models.md` §0: offset kept as given, UTC as `Z`, fractions as six digits.
@Suite struct TimestampTests {
    @Test(arguments: [
        ("2026-09-24T08:00:00Z", "2026-09-24T08:00:00Z"),
        ("2026-09-24T08:00:00+00:00", "2026-09-24T08:00:00Z"),
        ("2026-09-24T08:00:00+02:00", "2026-09-24T08:00:00+02:00"),
        ("2026-09-24T08:00:00-0530", "2026-09-24T08:00:00-05:30"),
        ("2026-09-24T08:00:00", "2026-09-24T08:00:00"),
        ("2026-09-24T08:00", "2026-09-24T08:00:00"),
        ("2026-09-24", "2026-09-24T00:00:00"),
        ("2026-09-24T08:00:00.5Z", "2026-09-24T08:00:00.500000Z"),
        ("2026-09-24T08:00:00.123456789Z", "2026-09-24T08:00:00.123456Z"),
        ("2024-02-29T00:00:00Z", "2024-02-29T00:00:00Z"),
        ("2026-09-24 08:00:00z", "2026-09-24T08:00:00Z"),
        ("2026-09-24T08:00:00+0200", "2026-09-24T08:00:00+02:00"),
    ])
    func parsesAndWrites(_ input: String, _ expected: String) {
        #expect(Timestamp(iso8601: input)?.iso8601 == expected, "\(input)")
    }

    @Test(arguments: [
        "2026-02-29T00:00:00Z", "2026-13-01", "2026-09-24T24:00:00Z", "2026-09-24T08:60:00Z", "26-09-24",
        "2026-09-24T08:00:00+24:00", "2026-09-24T08:00:00.Z", "2026-09-24X08:00", "", "2026-09-24T08:00:00Zjunk",
        // The reference requires an offset's minutes.
        "2026-09-24T08:00:00+02", "2026-09-24T08:00:00-05", "2026-09-24T08:00:00+02:0",
    ])
    func refusesMalformed(_ input: String) {
        #expect(Timestamp(iso8601: input) == nil, "\(input)")
    }

    @Test func unixSecondsBothWays() throws {
        let time = try #require(Timestamp(unixSeconds: 1_790_519_400.25))
        #expect(time.iso8601 == "2026-09-27T14:30:00.250000Z")
        #expect(time.unixSeconds == 1_790_519_400.25)
        let offset = try #require(Timestamp(iso8601: "2026-09-27T16:30:00+02:00"))
        #expect(offset.unixSeconds == 1_790_519_400)
        #expect(Timestamp(unixSeconds: -1)?.iso8601 == "1969-12-31T23:59:59Z")
        #expect(Timestamp(unixSeconds: .infinity) == nil)
    }
}
