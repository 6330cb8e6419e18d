/// An instant in UTC with nanosecond precision, between 0001-01-01 and 9999-12-31.
package struct RuleTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since 1970-01-01T00:00:00Z.
    package let seconds: Int64
    /// Nanoseconds past `seconds`, 0…999,999,999.
    package let nanos: Int32

    static let minSeconds: Int64 = -62_135_596_800
    static let maxSeconds: Int64 = 253_402_300_799

    /// Creates a timestamp from seconds and any number of nanoseconds; nil when out of range.
    package init?(seconds: Int64, nanos: Int64) {
        let (carry, remainder) = nanos.quotientAndRemainder(dividingBy: RuleDuration.nanosPerSecond)
        let (sum, overflow) = seconds.addingReportingOverflow(carry)
        guard !overflow else { return nil }
        var total = sum
        var rest = remainder
        if rest < 0 {
            total -= 1
            rest += RuleDuration.nanosPerSecond
        }
        guard total >= Self.minSeconds, total <= Self.maxSeconds else { return nil }
        self.seconds = total
        self.nanos = Int32(rest)
    }

    /// A timestamp from milliseconds since the epoch; nil when out of range.
    package init?(millisecondsSinceEpoch millis: Int64) {
        let (seconds, remainder) = millis.quotientAndRemainder(dividingBy: 1000)
        self.init(seconds: seconds, nanos: remainder * 1_000_000)
    }

    /// Milliseconds since the epoch, rounded down.
    package var millisecondsSinceEpoch: Int64 {
        seconds * 1000 + Int64(nanos) / 1_000_000
    }

    /// The timestamp moved by a duration; nil when out of range.
    package func adding(_ duration: RuleDuration) -> RuleTimestamp? {
        let (sum, overflow) = seconds.addingReportingOverflow(duration.seconds)
        guard !overflow else { return nil }
        return RuleTimestamp(seconds: sum, nanos: Int64(nanos) + Int64(duration.nanos))
    }

    /// The duration from another timestamp to this one.
    package func duration(since other: RuleTimestamp) -> RuleDuration? {
        RuleDuration(seconds: seconds - other.seconds, nanos: Int64(nanos) - Int64(other.nanos))
    }

    package static func < (lhs: RuleTimestamp, rhs: RuleTimestamp) -> Bool {
        (lhs.seconds, lhs.nanos) < (rhs.seconds, rhs.nanos)
    }

    /// `timestamp(2024-01-02T03:04:05.5Z)`.
    package var description: String {
        "timestamp(\(rfc3339))"
    }

    /// RFC 3339 in UTC, with a fraction only when there are nanoseconds.
    package var rfc3339: String {
        let date = civilDate
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        var text = "\(pad(date.year, 4))-\(pad(date.month, 2))-\(pad(date.day, 2))T"
            + "\(pad(hours, 2)):\(pad(minutes, 2)):\(pad(secondOfMinute, 2))"
        if nanos != 0 {
            var fraction = pad(Int64(nanos), 9)
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text += "." + fraction
        }
        return text + "Z"
    }
}
