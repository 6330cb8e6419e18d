import HearthJSON

extension Timestamp {
    /// The RFC 3339 form Firestore prints: UTC, `Z`, and 0, 3, 6 or 9 fraction digits.
    package var rfc3339: String {
        let days = CivilDays.floorDiv(seconds, 86_400)
        let secOfDay = seconds - days * 86_400
        let (y, m, d) = CivilDays.civilFromDays(days)
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
        let days = CivilDays.daysFromCivil(year, month, day)
        self.init(seconds: days * 86_400 + hour * 3600 + minute * 60 + second - offset, nanos: Int32(nanos))
    }
}

private func pad(_ v: Int64, _ width: Int) -> String {
    let s = String(v)
    return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
}

extension Timestamp {
    /// Parses a timestamp as the official emulator's JSON reader does (``LenientRFC3339``).
    package init?(lenientRFC3339 text: String) {
        guard let (seconds, nanos) = LenientRFC3339.parse(text) else { return nil }
        self.init(seconds: seconds, nanos: nanos)
    }
}
