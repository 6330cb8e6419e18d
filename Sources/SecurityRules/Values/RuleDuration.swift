/// A span of time with nanosecond precision, made with `duration.value(…)`,
/// `duration.time(…)` or by subtracting timestamps.
///
/// Stored as whole seconds plus a nanosecond part of the same sign, like
/// `google.protobuf.Duration`; the range is ±315,576,000,000 seconds (10,000 years).
package struct RuleDuration: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Whole seconds.
    package let seconds: Int64
    /// The sub-second part, -999,999,999…999,999,999, with the sign of `seconds`.
    package let nanos: Int32

    static let maxSeconds: Int64 = 315_576_000_000
    static let nanosPerSecond: Int64 = 1_000_000_000

    /// Creates a duration from seconds and any number of nanoseconds, normalising; nil when
    /// the result is out of range.
    package init?(seconds: Int64, nanos: Int64) {
        let (carry, remainder) = nanos.quotientAndRemainder(dividingBy: Self.nanosPerSecond)
        let (sum, overflow) = seconds.addingReportingOverflow(carry)
        guard !overflow else { return nil }
        var total = sum
        var rest = remainder
        if total > 0, rest < 0 {
            total -= 1
            rest += Self.nanosPerSecond
        } else if total < 0, rest > 0 {
            total += 1
            rest -= Self.nanosPerSecond
        }
        guard total.magnitude <= UInt64(Self.maxSeconds) else { return nil }
        self.seconds = total
        self.nanos = Int32(rest)
    }

    /// The sum; nil when out of range.
    package func adding(_ other: RuleDuration) -> RuleDuration? {
        let (sum, overflow) = seconds.addingReportingOverflow(other.seconds)
        guard !overflow else { return nil }
        return RuleDuration(seconds: sum, nanos: Int64(nanos) + Int64(other.nanos))
    }

    /// The negated duration.
    package var negated: RuleDuration {
        RuleDuration(uncheckedSeconds: -seconds, nanos: -nanos)
    }

    /// The absolute value.
    package var magnitude: RuleDuration {
        seconds < 0 || nanos < 0 ? negated : self
    }

    private init(uncheckedSeconds: Int64, nanos: Int32) {
        self.seconds = uncheckedSeconds
        self.nanos = nanos
    }

    package static func < (lhs: RuleDuration, rhs: RuleDuration) -> Bool {
        (lhs.seconds, lhs.nanos) < (rhs.seconds, rhs.nanos)
    }

    /// `duration(1.5s)`, `duration(-3600s)`.
    package var description: String {
        "duration(\(Self.secondsText(seconds: seconds, nanos: nanos)))"
    }

    static func secondsText(seconds: Int64, nanos: Int32) -> String {
        let negative = seconds < 0 || nanos < 0
        var text = (negative ? "-" : "") + String(seconds.magnitude)
        if nanos != 0 {
            var fraction = String(nanos.magnitude)
            fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text += "." + fraction
        }
        return text + "s"
    }
}
