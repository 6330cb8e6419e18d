/// A point in time with nanosecond fields, stored by Firestore with microsecond precision.
///
/// Valid timestamps lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999999Z.
package struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    package var seconds: Int64
    package var nanos: Int32

    /// Seconds of 0001-01-01T00:00:00Z.
    package static let minSeconds: Int64 = -62_135_596_800
    /// Seconds of 9999-12-31T23:59:59Z.
    package static let maxSeconds: Int64 = 253_402_300_799

    package init(seconds: Int64, nanos: Int32) {
        self.seconds = seconds
        self.nanos = nanos
    }

    /// A timestamp from microseconds since the Unix epoch.
    package init(microseconds: Int64) {
        var s = microseconds / 1_000_000
        var r = microseconds % 1_000_000
        if r < 0 {
            s -= 1
            r += 1_000_000
        }
        self.init(seconds: s, nanos: Int32(r * 1000))
    }

    /// Microseconds since the Unix epoch (sub-microsecond nanos are dropped).
    package var microseconds: Int64 { seconds * 1_000_000 + Int64(nanos / 1000) }

    /// This timestamp with nanoseconds truncated to whole microseconds, as Firestore stores it.
    package var truncatedToMicroseconds: Timestamp {
        Timestamp(seconds: seconds, nanos: nanos - nanos % 1000)
    }

    package var isValid: Bool {
        seconds >= Self.minSeconds && seconds <= Self.maxSeconds && nanos >= 0 && nanos < 1_000_000_000
    }

    package static func < (a: Timestamp, b: Timestamp) -> Bool {
        a.seconds != b.seconds ? a.seconds < b.seconds : a.nanos < b.nanos
    }

    package var description: String { rfc3339 }
}
