import DatabaseModel

/// The output and limit options of a REST request (`print`, `format`, `shallow`, `timeout`,
/// `writeSizeLimit`), checked as production checks them.
struct RESTOptions {
    var pretty = false
    var silent = false
    var export = false
    var shallow = false
    var sizeLimit: Int?

    /// How many nodes a write may replace and add under each `writeSizeLimit` (production
    /// estimates a write's time: tiny 1 s, small 10 s, medium 30 s, large 60 s; Hearth counts
    /// nodes instead, see docs/realtime-database.md). Unspecified is `large`.
    static let sizeLimits: [String: Int?] = [
        "tiny": 10_000, "small": 100_000, "medium": 300_000, "large": 1_000_000, "unlimited": nil,
    ]

    init(_ parameters: [String: String]) throws(DatabaseError) {
        switch parameters["print"] {
        case nil: break
        case "pretty": pretty = true
        case "silent": silent = true
        case let other?: throw .badRequest("print must be 'pretty' or 'silent', not '\(other)'")
        }
        switch parameters["format"] {
        case nil: break
        case "export": export = true
        case let other?: throw .badRequest("format must be 'export', not '\(other)'")
        }
        if let value = parameters["shallow"] {
            guard value == "true" || value == "false" else { throw .badRequest("shallow must be true or false") }
            shallow = value == "true"
            let others = ["orderBy", "startAt", "startAfter", "endAt", "endBefore", "equalTo", "limitToFirst", "limitToLast"]
            if shallow, others.contains(where: { parameters[$0] != nil }) || export {
                throw .badRequest("Mixing 'shallow' and querying parameters is not supported")
            }
        }
        if let value = parameters["writeSizeLimit"] {
            guard let limit = Self.sizeLimits[value] else {
                throw .badRequest("writeSizeLimit must be one of tiny, small, medium, large or unlimited")
            }
            sizeLimit = limit
        } else {
            sizeLimit = Self.sizeLimits["large"]!
        }
        if let value = parameters["timeout"] { try Self.checkTimeout(value) }
    }

    /// `timeout` is a number of `ms`, `s` or `min`, at most 15 min. (Reads here never take long
    /// enough for it to matter; it is only checked.)
    static func checkTimeout(_ text: String) throws(DatabaseError) {
        let units: [(String, Double)] = [("ms", 1), ("min", 60_000), ("s", 1000)]
        for (unit, scale) in units where text.hasSuffix(unit) {
            if let n = Double(text.dropLast(unit.count)), n >= 0, n * scale <= 15 * 60_000 { return }
        }
        throw .badRequest("timeout must be a number followed by ms, s or min, at most 15min")
    }
}
