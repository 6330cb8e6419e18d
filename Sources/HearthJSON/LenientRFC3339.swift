/// RFC 3339 text as the official emulator's readers take it: its REST JSON (`timestampValue`,
/// `readTime`) and its rules' `timestamp.value(string)`.
package enum LenientRFC3339 {
    /// Reads a timestamp as the official emulator's JSON reader does: the shape of RFC 3339, but
    /// each date and time field one or more digits (a `-` sign allowed), fields past their range
    /// rolling over into the next larger one (`24:00:00` is the next day, month 13 the next
    /// year's January, day 0 the last of the month before, second 61 one second into the next
    /// minute), a fraction of any number of digits (those past the ninth dropped; a lone `.` is
    /// no fraction) and an offset of `±H:M` with one or two digits each, of any size. Recorded in
    /// fixtures/differential/rest/round-11.json. Text after the seconds other than a fraction, a
    /// `Z` or an offset is refused (the emulator skips some of it: a listed difference).
    ///
    /// Returns the seconds since the epoch and the nanoseconds, or nil.
    package static func parse(_ text: String) -> (seconds: Int64, nanos: Int32)? {
        let b = Array(text.utf8)
        var i = 0
        func number(maxDigits: Int, signed: Bool) -> Int64? {
            var negative = false
            if signed, i < b.count, b[i] == UInt8(ascii: "-") {
                negative = true
                i += 1
            }
            var v: Int64 = 0
            var digits = 0
            while i < b.count, b[i] >= 48, b[i] <= 57, digits < maxDigits {
                v = v * 10 + Int64(b[i] - 48)
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            return negative ? -v : v
        }
        func expect(_ c: Character) -> Bool {
            guard i < b.count, b[i] == c.asciiValue else { return false }
            i += 1
            return true
        }
        guard let year = number(maxDigits: 4, signed: false), i == 4, expect("-"),
              let month = number(maxDigits: 9, signed: true), expect("-"),
              let day = number(maxDigits: 9, signed: true), expect("T"),
              let hour = number(maxDigits: 9, signed: true), expect(":"),
              let minute = number(maxDigits: 9, signed: true), expect(":"),
              let second = number(maxDigits: 9, signed: true)
        else { return nil }
        var nanos: Int64 = 0
        if expect(".") {
            var digits = 0
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                if digits < 9 { nanos = nanos * 10 + Int64(b[i] - 48) }
                digits += 1
                i += 1
            }
            for _ in min(digits, 9)..<9 { nanos *= 10 }
        }
        var offset: Int64 = 0
        if expect("Z") {
        } else if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            let sign: Int64 = b[i] == UInt8(ascii: "+") ? 1 : -1
            i += 1
            guard let oh = number(maxDigits: 2, signed: false), expect(":"),
                  let om = number(maxDigits: 2, signed: false) else { return nil }
            offset = sign * (oh * 3600 + om * 60)
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let monthIndex = month - 1
        let y = year + CivilDays.floorDiv(monthIndex, 12)
        let m = monthIndex - CivilDays.floorDiv(monthIndex, 12) * 12 + 1
        let days = CivilDays.daysFromCivil(y, m, 1) + (day - 1)
        return (days * 86_400 + hour * 3600 + minute * 60 + second - offset, Int32(nanos))
    }
}

/// Days of the proleptic Gregorian calendar counted from 1970-01-01 (Howard Hinnant's
/// algorithms), for reading and printing RFC 3339 times.
package enum CivilDays {
    /// `a / b` rounded towards negative infinity.
    package static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// Days since 1970-01-01 of a date.
    package static func daysFromCivil(_ year: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? year - 1 : year
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let mp = (m + 9) % 12
        let doy = (153 * mp + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date (year, month, day) of a day since 1970-01-01.
    package static func civilFromDays(_ days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
