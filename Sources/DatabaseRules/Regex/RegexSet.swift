import HearthRegex

/// A character class as the database's dialect builds it (JavaScript's `\d \w \s`): ranges,
/// possibly negated; ``scalarClass(caseInsensitive:)`` is the shared engine's class for it.
struct RegexSet: Sendable {
    var ranges: [ClosedRange<UInt32>] = []
    var negated = false

    /// The class for the engine, with every letter's other cases when `caseInsensitive`.
    func scalarClass(caseInsensitive: Bool) -> ScalarClass {
        let set = ScalarClass(items: ranges.map { .range($0) }, negated: negated)
        return caseInsensitive ? set.foldingCase() : set
    }

    static let digits: [ClosedRange<UInt32>] = [48...57]
    static let word: [ClosedRange<UInt32>] = [48...57, 65...90, 95...95, 97...122]
    static let space: [ClosedRange<UInt32>] = [9...13, 32...32, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A,
                                                 0x2028...0x2029, 0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000, 0xFEFF...0xFEFF]
    /// `.`: anything but JavaScript's line terminators (\n, \r, U+2028, U+2029).
    static let anyButLineTerminators: [ClosedRange<UInt32>] = [0...9, 11...12, 14...0x2027, 0x202A...0x10FFFF]

    static func complement(_ ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        var out: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for r in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if r.lowerBound > next { out.append(next...(r.lowerBound - 1)) }
            next = max(next, r.upperBound + 1)
        }
        if next <= 0x10FFFF { out.append(next...0x10FFFF) }
        return out
    }
}
