import FirestoreModel
import Testing

@Suite("Timestamps")
struct TimestampTests {
    @Test("RFC 3339 parses offsets and fractions and prints UTC", arguments: [
        ("2024-05-01T10:00:00Z", "2024-05-01T10:00:00Z"),
        ("2024-05-01T10:00:00.5Z", "2024-05-01T10:00:00.500Z"),
        ("2024-05-01T10:00:00.123456Z", "2024-05-01T10:00:00.123456Z"),
        ("2024-05-01T10:00:00.123456789Z", "2024-05-01T10:00:00.123456789Z"),
        ("2024-05-01T12:30:00+02:30", "2024-05-01T10:00:00Z"),
        ("2024-05-01T00:00:00-01:00", "2024-05-01T01:00:00Z"),
        ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z"),
        ("9999-12-31T23:59:59.999999Z", "9999-12-31T23:59:59.999999Z"),
        ("1969-12-31T23:59:59.999999Z", "1969-12-31T23:59:59.999999Z"),
        ("2024-02-29T00:00:00Z", "2024-02-29T00:00:00Z"),
        ("2023-02-30T00:00:00Z", "2023-03-02T00:00:00Z"),
        ("2016-12-31T23:59:60Z", "2017-01-01T00:00:00Z"),
    ])
    func roundTrip(input: String, expected: String) throws {
        let t = try #require(Timestamp(rfc3339: input))
        #expect(t.rfc3339 == expected)
    }

    @Test("invalid RFC 3339 texts are rejected", arguments: [
        "", "2024-05-01", "2024-05-01T10:00:00", "2024-13-01T00:00:00Z", "2024-01-32T00:00:00Z", "2024-05-01t10:00:00Z", "2024-05-01T10:00:00z",
        "2024-05-01T24:00:00Z", "2024-05-01T10:00:00.Z", "2024-05-01T10:00:00.1234567890Z", "2024-05-01 10:00:00Z",
        "2024-05-01T10:00:00+0200", "x024-05-01T10:00:00Z",
    ])
    func rejects(input: String) {
        #expect(Timestamp(rfc3339: input) == nil)
    }

    @Test("validity covers years 1 to 9999")
    func validity() throws {
        #expect(try #require(Timestamp(rfc3339: "0001-01-01T00:00:00Z")).isValid)
        #expect(try #require(Timestamp(rfc3339: "9999-12-31T23:59:59.999999999Z")).isValid)
        #expect(!Timestamp(seconds: Timestamp.minSeconds - 1, nanos: 0).isValid)
        #expect(!Timestamp(seconds: Timestamp.maxSeconds + 1, nanos: 0).isValid)
    }

    @Test("microseconds round trip and truncate")
    func microseconds() {
        let t = Timestamp(microseconds: -1)
        #expect(t.seconds == -1 && t.nanos == 999_999_000)
        #expect(t.microseconds == -1)
        #expect(Timestamp(seconds: 5, nanos: 123_456_789).truncatedToMicroseconds.nanos == 123_456_000)
    }
}
