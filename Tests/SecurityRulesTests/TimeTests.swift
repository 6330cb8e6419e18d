import Testing
@testable import SecurityRules

@Suite("Timestamps and durations")
struct TimeTests {
    @Test("calendar dates round-trip through days since the epoch across the whole range")
    func civilRoundTrip() {
        var mismatches: [Int64] = []
        var previous = RuleTimestamp.civil(fromDays: RuleTimestamp.minSeconds / 86_400 - 1)
        for day in (RuleTimestamp.minSeconds / 86_400)...(RuleTimestamp.maxSeconds / 86_400) {
            let date = RuleTimestamp.civil(fromDays: day)
            let isNext = date.day == previous.day + 1
                || (date.day == 1 && (date.month == previous.month + 1 || (date.month == 1 && date.year == previous.year + 1)))
            if RuleTimestamp.days(fromCivilYear: date.year, month: date.month, day: date.day) != day || !isNext {
                mismatches.append(day)
            }
            previous = date
        }
        #expect(mismatches.isEmpty, "first mismatching days: \(mismatches.prefix(5))")
    }

    @Test("known instants have the expected fields", arguments: [
        (Int64(0), "1970-01-01T00:00:00Z", Int64(4), Int64(1)),
        (951_782_400, "2000-02-29T00:00:00Z", 2, 60),
        (-62_135_596_800, "0001-01-01T00:00:00Z", 1, 1),
        (253_402_300_799, "9999-12-31T23:59:59Z", 5, 365),
    ])
    func fields(_ seconds: Int64, _ text: String, _ dayOfWeek: Int64, _ dayOfYear: Int64) throws {
        let timestamp = try #require(RuleTimestamp(seconds: seconds, nanos: 0))
        #expect(timestamp.rfc3339 == text)
        #expect(timestamp.dayOfWeek == dayOfWeek)
        #expect(timestamp.dayOfYear == dayOfYear)
    }

    @Test("timestamps and durations outside their ranges do not exist")
    func ranges() {
        #expect(RuleTimestamp(seconds: RuleTimestamp.maxSeconds, nanos: 1_000_000_000) == nil)
        #expect(RuleTimestamp(seconds: RuleTimestamp.minSeconds, nanos: -1) == nil)
        #expect(RuleTimestamp(seconds: .max, nanos: .max) == nil)
        #expect(RuleDuration(seconds: RuleDuration.maxSeconds + 1, nanos: 0) == nil)
        #expect(RuleDuration(seconds: .min, nanos: .min) == nil)
    }

    @Test("durations normalise nanoseconds to the sign of the seconds", arguments: [
        (Int64(1), Int64(-1), Int64(0), Int32(999_999_999)),
        (-1, 1, 0, -999_999_999),
        (0, 2_500_000_000, 2, 500_000_000),
        (0, -2_500_000_000, -2, -500_000_000),
    ])
    func normalisation(_ seconds: Int64, _ nanos: Int64, _ expectedSeconds: Int64, _ expectedNanos: Int32) throws {
        let duration = try #require(RuleDuration(seconds: seconds, nanos: nanos))
        #expect(duration.seconds == expectedSeconds && duration.nanos == expectedNanos)
    }
}
