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
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
