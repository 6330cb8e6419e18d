/// A compiled regular expression and its matcher: a Pike VM that advances every live thread
/// one character at a time, so matching costs O(text × program) at most.
struct RegexProgram: Sendable {
    enum Instruction: Sendable {
        case char(Unicode.Scalar)
        case any
        case set(RegexSet)
        case boundary(Bool)
        case assertStart
        case assertEnd
        case split(Int, Int)
        case jump(Int)
        case match
    }

    static let maxInstructions = 20_000

    let code: [Instruction]
    let caseInsensitive: Bool
    let anchoredStart: Bool

    init(_ tree: RegexNode, anchoredStart: Bool, anchoredEnd: Bool, caseInsensitive: Bool) throws(RuleRegex.Invalid) {
        var builder = Builder()
        if anchoredStart { builder.code.append(.assertStart) }
        try builder.emit(tree)
        if anchoredEnd { builder.code.append(.assertEnd) }
        builder.code.append(.match)
        code = builder.code
        self.caseInsensitive = caseInsensitive
        self.anchoredStart = anchoredStart
    }

    struct Builder {
        var code: [Instruction] = []

        mutating func emit(_ node: RegexNode) throws(RuleRegex.Invalid) {
            guard code.count < RegexProgram.maxInstructions else { throw RuleRegex.Invalid(reason: "expression too large") }
            switch node {
            case .empty: break
            case .literal(let c): code.append(.char(c))
            case .any: code.append(.any)
            case .set(let s): code.append(.set(s))
            case .wordBoundary(let b): code.append(.boundary(b))
            case .concat(let items):
                for item in items { try emit(item) }
            case .alternation(let branches):
                var jumps: [Int] = []
                for (n, branch) in branches.enumerated() {
                    if n < branches.count - 1 {
                        let split = code.count
                        code.append(.split(split + 1, 0))
                        try emit(branch)
                        jumps.append(code.count)
                        code.append(.jump(0))
                        code[split] = .split(split + 1, code.count)
                    } else {
                        try emit(branch)
                    }
                }
                for j in jumps { code[j] = .jump(code.count) }
            case .repeated(let inner, let low, let high):
                for _ in 0..<low { try emit(inner) }
                if let high {
                    // (x(x(x)?)?)? for the optional copies.
                    var splits: [Int] = []
                    for _ in low..<high {
                        splits.append(code.count)
                        code.append(.split(code.count + 1, 0))
                        try emit(inner)
                    }
                    for s in splits { code[s] = .split(s + 1, code.count) }
                } else {
                    let loop = code.count
                    code.append(.split(loop + 1, 0))
                    try emit(inner)
                    code.append(.jump(loop))
                    code[loop] = .split(loop + 1, code.count)
                }
            }
        }
    }

    /// Whether the program matches `text` starting anywhere.
    func search(_ text: [Unicode.Scalar]) -> Bool {
        var current = ThreadList(capacity: code.count), next = ThreadList(capacity: code.count)
        for position in 0...text.count {
            if !anchoredStart || position == 0 {
                if addThread(0, to: &current, at: position, in: text) { return true }
            }
            if current.isEmpty {
                if anchoredStart { return false }
                current.clear()
                continue
            }
            guard position < text.count else { break }
            let c = text[position]
            next.clear()
            for pc in current.items {
                let advances: Bool
                switch code[pc] {
                case .char(let expected): advances = expected == c || (caseInsensitive && Self.caseVariants(c).contains(expected))
                case .any: advances = c != "\n" && c != "\r" && c != "\u{2028}" && c != "\u{2029}"
                case .set(let set): advances = set.contains(c, caseInsensitive: caseInsensitive)
                default: advances = false
                }
                if advances, addThread(pc + 1, to: &next, at: position + 1, in: text) { return true }
            }
            swap(&current, &next)
        }
        return false
    }

    /// Adds `pc` and everything reachable from it without reading a character; true when that
    /// reaches `match`.
    func addThread(_ pc: Int, to list: inout ThreadList, at position: Int, in text: [Unicode.Scalar]) -> Bool {
        var stack = [pc]
        while let pc = stack.popLast() {
            guard list.insert(pc) else { continue }
            switch code[pc] {
            case .match: return true
            case .jump(let target): stack.append(target)
            case .split(let a, let b):
                stack.append(b)
                stack.append(a)
            case .assertStart:
                if position == 0 { stack.append(pc + 1) }
            case .assertEnd:
                if position == text.count { stack.append(pc + 1) }
            case .boundary(let wanted):
                let before = position > 0 && Self.isWord(text[position - 1])
                let after = position < text.count && Self.isWord(text[position])
                if (before != after) == wanted { stack.append(pc + 1) }
            default:
                list.keep(pc)
            }
        }
        return false
    }

    static func isWord(_ c: Unicode.Scalar) -> Bool {
        RegexSet.word.contains { $0.contains(c.value) }
    }

    /// The other cases of `c` (JavaScript's `i` flag compares case-folded characters).
    static func caseVariants(_ c: Unicode.Scalar) -> [Unicode.Scalar] {
        let upper = String(c).uppercased().unicodeScalars, lower = String(c).lowercased().unicodeScalars
        var out: [Unicode.Scalar] = []
        if upper.count == 1, let u = upper.first, u != c { out.append(u) }
        if lower.count == 1, let l = lower.first, l != c { out.append(l) }
        return out
    }
}

/// A sparse set of program counters: O(1) insert, membership and clear.
struct ThreadList {
    var dense: [Int]
    var sparse: [Int]
    var seen = 0
    /// The threads waiting on a character, in priority order.
    var items: [Int] = []

    init(capacity: Int) {
        dense = Array(repeating: 0, count: capacity)
        sparse = Array(repeating: 0, count: capacity)
    }

    var isEmpty: Bool { items.isEmpty }

    /// Marks `pc` visited; false when it already was.
    mutating func insert(_ pc: Int) -> Bool {
        let j = sparse[pc]
        if j < seen, dense[j] == pc { return false }
        sparse[pc] = seen
        dense[seen] = pc
        seen += 1
        return true
    }

    mutating func keep(_ pc: Int) { items.append(pc) }

    mutating func clear() {
        seen = 0
        items.removeAll(keepingCapacity: true)
    }
}
