import HearthJSON

/// Calendar fields of a timestamp in the proleptic Gregorian calendar, UTC.
///
/// Computed with Howard Hinnant's days-from-civil algorithms, so results do not depend on the
/// host's time zone or calendar settings.
extension RuleTimestamp {
    /// Days since 1970-01-01.
    var daysSinceEpoch: Int64 {
        seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    }

    var secondOfDay: Int64 { seconds - daysSinceEpoch * 86_400 }
    /// Hour of the day, 0…23.
    package var hours: Int64 { secondOfDay / 3600 }
    /// Minute of the hour, 0…59.
    package var minutes: Int64 { secondOfDay % 3600 / 60 }
    /// Second of the minute, 0…59.
    package var secondOfMinute: Int64 { secondOfDay % 60 }

    /// Year, month (1…12) and day (1…31).
    package var civilDate: (year: Int64, month: Int64, day: Int64) {
        Self.civil(fromDays: daysSinceEpoch)
    }

    /// ISO day of the week: Monday is 1, Sunday is 7.
    package var dayOfWeek: Int64 {
        ((daysSinceEpoch % 7) + 7 + 3) % 7 + 1
    }

    /// Day of the year, 1…366.
    package var dayOfYear: Int64 {
        daysSinceEpoch - Self.days(fromCivilYear: civilDate.year, month: 1, day: 1) + 1
    }

    /// Midnight at the start of this timestamp's day.
    package var startOfDay: RuleTimestamp? {
        RuleTimestamp(seconds: daysSinceEpoch * 86_400, nanos: 0)
    }

    /// Time since midnight.
    package var timeOfDay: RuleDuration? {
        RuleDuration(seconds: secondOfDay, nanos: Int64(nanos))
    }

    /// Midnight UTC of a calendar date; nil for an invalid date or a year outside 1…9999.
    package init?(year: Int64, month: Int64, day: Int64) {
        guard (1...9999).contains(year), (1...12).contains(month),
              (1...Self.daysInMonth(year: year, month: month)).contains(day) else { return nil }
        self.init(seconds: Self.days(fromCivilYear: year, month: month, day: day) * 86_400, nanos: 0)
    }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    static func days(fromCivilYear year: Int64, month: Int64, day: Int64) -> Int64 {
        CivilDays.daysFromCivil(year, month, day)
    }

    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let (year, month, day) = CivilDays.civilFromDays(days)
        return (year, month, day)
    }
}
