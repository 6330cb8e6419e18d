import HearthJSON

/// Timestamps and durations: their methods and the `timestamp.` and `duration.` namespaces.
enum TimeMethods {
    static func call(_ name: String, _ timestamp: RuleTimestamp, _ arguments: [RuleValue]) -> RuleOutcome {
        let date = timestamp.civilDate
        let result: RuleValue?
        switch name {
        case "year": result = .int(date.year)
        case "month": result = .int(date.month)
        case "day": result = .int(date.day)
        case "hours": result = .int(timestamp.hours)
        case "minutes": result = .int(timestamp.minutes)
        case "seconds": result = .int(timestamp.secondOfMinute)
        case "nanos": result = .int(Int64(timestamp.nanos))
        case "dayOfWeek": result = .int(timestamp.dayOfWeek)
        case "dayOfYear": result = .int(timestamp.dayOfYear)
        case "toMillis": result = .int(timestamp.millisecondsSinceEpoch)
        case "date": result = timestamp.startOfDay.map(RuleValue.timestamp)
        case "time": result = timestamp.timeOfDay.map(RuleValue.duration)
        default: return .failure(.functionNotFound(name))
        }
        if let error = Library.arity(name, arguments, 0) { return .failure(error) }
        return result.map(RuleOutcome.success) ?? .failure(RuleError("Timestamp out of range."))
    }

    static func call(_ name: String, _ duration: RuleDuration, _ arguments: [RuleValue]) -> RuleOutcome {
        let result: RuleValue
        switch name {
        case "seconds": result = .int(duration.seconds)
        case "nanos": result = .int(Int64(duration.nanos))
        default: return .failure(.functionNotFound(name))
        }
        if let error = Library.arity(name, arguments, 0) { return .failure(error) }
        return .success(result)
    }

    /// `timestamp.date(year, month, day)` and `timestamp.value(epochMillis or RFC 3339 text)`.
    static func timestampFunction(_ name: String, _ arguments: [RuleValue]) -> RuleOutcome {
        switch name {
        case "date":
            if let error = Library.arity("timestamp.date", arguments, 3) { return .failure(error) }
            guard let parts = Library.ints(arguments) else { return .failure(.invalidArgument("timestamp.date() expects three ints.")) }
            guard let timestamp = RuleTimestamp(year: parts[0], month: parts[1], day: parts[2]) else {
                return .failure(.invalidArgument("\(parts[0])-\(parts[1])-\(parts[2]) is not a valid date between years 1 and 9999."))
            }
            return .success(.timestamp(timestamp))
        case "value":
            if let error = Library.arity("timestamp.value", arguments, 1) { return .failure(error) }
            switch arguments[0] {
            case .int(let millis):
                guard let timestamp = RuleTimestamp(millisecondsSinceEpoch: millis) else { return .failure(RuleError("Timestamp out of range.")) }
                return .success(.timestamp(timestamp))
            case .string(let text):
                // RFC 3339 text, read as leniently as the emulator's JSON reader reads it, after
                // any leading spaces (fixtures/differential/rules/round-12.json, r12-ts-str-*).
                guard let (seconds, nanos) = LenientRFC3339.parse(String(text.drop { $0 == " " })) else {
                    return .failure(.invalidArgument("timestamp.value() cannot read '\(text)' as an RFC 3339 time."))
                }
                guard let timestamp = RuleTimestamp(seconds: seconds, nanos: Int64(nanos)) else {
                    return .failure(RuleError("Timestamp out of range."))
                }
                return .success(.timestamp(timestamp))
            default:
                return Library.typeError("timestamp.value", expected: "an int or an RFC 3339 string", got: arguments[0])
            }
        default:
            return .failure(.functionNotFound("timestamp.\(name)"))
        }
    }

    static let unitSeconds: [String: Int64] = ["w": 604_800, "d": 86_400, "h": 3600, "m": 60, "s": 1]

    /// `duration.value(magnitude, unit)`, `duration.time(h, m, s, ns)` and `duration.abs(d)`.
    static func durationFunction(_ name: String, _ arguments: [RuleValue]) -> RuleOutcome {
        let outOfRange = RuleOutcome.failure(RuleError("Duration out of range."))
        switch name {
        case "value":
            if let error = Library.arity("duration.value", arguments, 2) { return .failure(error) }
            guard case .int(let magnitude) = arguments[0], case .string(let unit) = arguments[1] else {
                return .failure(.invalidArgument("duration.value() expects an int and a unit string."))
            }
            let duration: RuleDuration?
            if let scale = unitSeconds[unit] {
                let (seconds, overflow) = magnitude.multipliedReportingOverflow(by: scale)
                duration = overflow ? nil : RuleDuration(seconds: seconds, nanos: 0)
            } else if unit == "ms" {
                let (seconds, millis) = magnitude.quotientAndRemainder(dividingBy: 1000)
                duration = RuleDuration(seconds: seconds, nanos: millis * 1_000_000)
            } else if unit == "ns" {
                duration = RuleDuration(seconds: 0, nanos: magnitude)
            } else {
                return .failure(.invalidArgument("unknown duration unit '\(unit)'; use w, d, h, m, s, ms or ns."))
            }
            return duration.map { .success(.duration($0)) } ?? outOfRange
        case "time":
            if let error = Library.arity("duration.time", arguments, 4) { return .failure(error) }
            guard let parts = Library.ints(arguments) else { return .failure(.invalidArgument("duration.time() expects four ints.")) }
            let (hours, overflowH) = parts[0].multipliedReportingOverflow(by: 3600)
            let (minutes, overflowM) = parts[1].multipliedReportingOverflow(by: 60)
            let (sum, overflowS) = hours.addingReportingOverflow(minutes)
            let (seconds, overflowT) = sum.addingReportingOverflow(parts[2])
            guard !(overflowH || overflowM || overflowS || overflowT),
                  let duration = RuleDuration(seconds: seconds, nanos: parts[3]) else { return outOfRange }
            return .success(.duration(duration))
        case "abs":
            if let error = Library.arity("duration.abs", arguments, 1) { return .failure(error) }
            guard case .duration(let duration) = arguments[0] else { return Library.typeError("duration.abs", expected: "a duration", got: arguments[0]) }
            return .success(.duration(duration.magnitude))
        default:
            return .failure(.functionNotFound("duration.\(name)"))
        }
    }
}
