import HearthJSON

/// Times as Cloud Storage writes them: RFC 3339 in UTC with milliseconds
/// (`2020-09-18T00:31:33.328Z`), from microseconds since the epoch, and back.
package enum StorageTime {
    /// `2020-09-18T00:31:33.328Z` for a time in microseconds since the epoch.
    package static func rfc3339(micros: Int64) -> String {
        let millis = micros >= 0 ? micros / 1000 : (micros - 999) / 1000
        let days = millis >= 0 ? millis / 86_400_000 : (millis - 86_399_999) / 86_400_000
        let inDay = millis - days * 86_400_000
        let (year, month, day) = civil(fromDays: days)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(inDay / 3_600_000, 2)):\(pad(inDay / 60_000 % 60, 2)):"
            + "\(pad(inDay / 1000 % 60, 2)).\(pad(inDay % 1000, 3))Z"
    }

    /// HTTP's date form (`Last-Modified`): `Fri, 18 Sep 2020 00:31:33 GMT`.
    package static func httpDate(micros: Int64) -> String {
        let seconds = micros / 1_000_000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let inDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let weekday = weekdays[Int(((days % 7) + 7) % 7)]
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekday), \(two(day)) \(months[Int(month) - 1]) \(year) \(two(inDay / 3600)):\(two(inDay / 60 % 60)):\(two(inDay % 60)) GMT"
    }

    /// Microseconds since the epoch of an RFC 3339 time in UTC (`Z` or `+00:00`), with any
    /// number of fraction digits; nil when it is not one.
    package static func micros(rfc3339 text: String) -> Int64? {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[range] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        guard bytes.count >= 20, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54 || bytes[10] == 0x74,
              bytes[13] == 0x3A, bytes[16] == 0x3A,
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction: Int64 = 0
        if index < bytes.count, bytes[index] == 0x2E {
            index += 1
            var digits = 0
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                if digits < 6 { fraction = fraction * 10 + Int64(bytes[index] - 0x30) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in min(digits, 6)..<6 { fraction *= 10 }
        }
        let zone = String(decoding: bytes[index...], as: UTF8.self)
        guard zone == "Z" || zone == "z" || zone == "+00:00" || zone == "-00:00" else { return nil }
        let days = days(fromCivil: year, month, day)
        return ((days * 86_400 + hour * 3600 + minute * 60 + second) * 1_000_000) + fraction
    }

    /// Year, month and day of a day count since 1970-01-01.
    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        CivilDays.civilFromDays(days)
    }

    /// Days since 1970-01-01 of a civil date.
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        CivilDays.daysFromCivil(year, month, day)
    }
}
