extension Timestamp {
    /// The RFC 3339 form Firestore prints: UTC, `Z`, and 0, 3, 6 or 9 fraction digits.
    package var rfc3339: String {
        let days = floorDiv(seconds, 86_400)
        let secOfDay = seconds - days * 86_400
        let (y, m, d) = civilFromDays(days)
        var out = pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + "T"
        out += pad(secOfDay / 3600, 2) + ":" + pad(secOfDay / 60 % 60, 2) + ":" + pad(secOfDay % 60, 2)
        if nanos != 0 {
            var digits = pad(Int64(nanos), 9)
            if nanos % 1_000_000 == 0 {
                digits = String(digits.prefix(3))
            } else if nanos % 1000 == 0 {
                digits = String(digits.prefix(6))
            }
            out += "." + digits
        }
        return out + "Z"
    }

    /// Parses an RFC 3339 timestamp such as `2024-05-01T10:00:00.123456Z` or with a `+02:00` offset.
    ///
    /// Returns nil when the text is not a valid RFC 3339 date-time.
    package init?(rfc3339 text: String) {
        let b = Array(text.utf8)
        func num(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= b.count else { return nil }
            var v: Int64 = 0
            for i in from..<(from + count) {
                let c = b[i]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int64(c - 48)
            }
            return v
        }
        guard b.count >= 20,
              let year = num(0, 4), b[4] == UInt8(ascii: "-"),
              let month = num(5, 2), b[7] == UInt8(ascii: "-"),
              let day = num(8, 2), b[10] == UInt8(ascii: "T"),
              let hour = num(11, 2), b[13] == UInt8(ascii: ":"),
              let minute = num(14, 2), b[16] == UInt8(ascii: ":"),
              let second = num(17, 2)
        else { return nil }
        // As Firestore's parser: days up to 31 roll into the next month (Feb 30 is Mar 1) and a
        // leap second (:60) rolls into the next minute.
        guard (1...12).contains(month), day >= 1, day <= 31, hour < 24, minute < 60, second <= 60 else { return nil }
        var i = 19
        var nanos: Int64 = 0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var digits = 0
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                if digits < 9 { nanos = nanos * 10 + Int64(b[i] - 48) }
                digits += 1
                i += 1
            }
            guard digits > 0, digits <= 9 else { return nil }
            for _ in digits..<9 { nanos *= 10 }
        }
        guard i < b.count else { return nil }
        var offset: Int64 = 0
        if b[i] == UInt8(ascii: "Z") {
            i += 1
        } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            let sign: Int64 = b[i] == UInt8(ascii: "+") ? 1 : -1
            guard let oh = num(i + 1, 2), i + 3 < b.count, b[i + 3] == UInt8(ascii: ":"),
                  let om = num(i + 4, 2), oh < 24, om < 60 else { return nil }
            offset = sign * (oh * 3600 + om * 60)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(year, month, day)
        self.init(seconds: days * 86_400 + hour * 3600 + minute * 60 + second - offset, nanos: Int32(nanos))
    }
}

private func pad(_ v: Int64, _ width: Int) -> String {
    let s = String(v)
    return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
}

private func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
private func daysFromCivil(_ year: Int64, _ m: Int64, _ d: Int64) -> Int64 {
    let y = m <= 2 ? year - 1 : year
    let era = floorDiv(y, 400)
    let yoe = y - era * 400
    let mp = (m + 9) % 12
    let doy = (153 * mp + 2) / 5 + d - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
}

private func civilFromDays(_ days: Int64) -> (Int64, Int64, Int64) {
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

extension Timestamp {
    /// Parses a timestamp as the official emulator's JSON reader does: the shape of RFC 3339, but
    /// each date and time field one or more digits (a `-` sign allowed), fields past their range
    /// rolling over into the next larger one (`24:00:00` is the next day, month 13 the next
    /// year's January, day 0 the last of the month before, second 61 one second into the next
    /// minute), a fraction of any number of digits (those past the ninth dropped; a lone `.` is
    /// no fraction) and an offset of `±H:M` with one or two digits each, of any size. Recorded in
    /// fixtures/differential/rest/round-11.json. Text after the seconds other than a fraction, a
    /// `Z` or an offset is refused (the emulator skips some of it: a listed difference).
    package init?(lenientRFC3339 text: String) {
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
        let y = year + floorDiv(monthIndex, 12)
        let m = monthIndex - floorDiv(monthIndex, 12) * 12 + 1
        let days = daysFromCivil(y, m, 1) + (day - 1)
        self.init(seconds: days * 86_400 + hour * 3600 + minute * 60 + second - offset, nanos: Int32(nanos))
    }
}
