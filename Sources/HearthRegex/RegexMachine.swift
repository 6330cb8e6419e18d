/// Runs a ``RegexProgram`` over text as a Pike machine: every thread advances one character at
/// a time, a thread per instruction at most, in priority order, so a match is found in time
/// linear in the text (times the program's size) and is the one a backtracking engine would
/// prefer (leftmost, then by the pattern's order of alternatives and greediness), as RE2's is.
package struct RegexMachine {
    let program: RegexProgram

    package init(program: RegexProgram) {
        self.program = program
    }

    /// Whether the program matches somewhere in `text` (or, `anchored`, at its start).
    package func search(_ text: [Unicode.Scalar], anchored: Bool = false) -> Bool {
        firstMatch(in: text, from: 0, anchored: anchored, wholeText: false) != nil
    }

    /// The capture slots (scalar offsets) of the first match at or after `start`, or nil.
    /// `anchored` requires the match to start at `start`; `wholeText` to end at the text's end.
    package func firstMatch(in text: [Unicode.Scalar], from start: Int, anchored: Bool, wholeText: Bool) -> [Int?]? {
        let code = program.instructions
        var current = ThreadList(size: code.count)
        var next = ThreadList(size: code.count)
        var matched: [Int?]?
        var position = start
        var initial = [Int?](repeating: nil, count: program.slots)
        addThread(&current, pc: 0, captures: &initial, at: position, in: text)
        while true {
            if current.isEmpty && (matched != nil || anchored) { break }
            let character: Unicode.Scalar? = position < text.count ? text[position] : nil
            next.clear()
            var k = 0
            while k < current.count {
                let (pc, captures) = current.thread(k)
                k += 1
                switch code[pc] {
                case .match:
                    if !wholeText || position == text.count {
                        matched = captures
                        // Threads after this one have lower priority: drop them.
                        k = current.count
                    }
                case .character(let set):
                    if let character, set.contains(character) {
                        var copy = captures
                        addThread(&next, pc: pc + 1, captures: &copy, at: position + 1, in: text)
                    }
                default:
                    break
                }
            }
            guard position < text.count else { break }
            position += 1
            // A new attempt starting here, after every thread of an earlier start.
            if matched == nil && !anchored {
                var fresh = [Int?](repeating: nil, count: program.slots)
                addThread(&next, pc: 0, captures: &fresh, at: position, in: text)
            }
            swap(&current, &next)
            if current.isEmpty && matched == nil && anchored { break }
        }
        return matched
    }

    /// Adds the thread at `pc` and every thread its empty transitions reach, in priority
    /// order, each instruction once per step (an explicit stack: programs can be long).
    private func addThread(_ list: inout ThreadList, pc start: Int, captures: inout [Int?], at position: Int, in text: [Unicode.Scalar]) {
        enum Work {
            case visit(Int, [Int?])
        }
        var stack: [Work] = [.visit(start, captures)]
        while let work = stack.popLast() {
            guard case .visit(let pc, var caps) = work, !list.contains(pc) else { continue }
            list.mark(pc)
            switch program.instructions[pc] {
            case .jump(let target):
                stack.append(.visit(target, caps))
            case .split(let first, let second):
                stack.append(.visit(second, caps))
                stack.append(.visit(first, caps))
            case .save(let slot):
                caps[slot] = position
                stack.append(.visit(pc + 1, caps))
            case .assertion(let assertion):
                if Self.holds(assertion, at: position, in: text) { stack.append(.visit(pc + 1, caps)) }
            case .character, .match:
                list.append(pc, caps)
            }
        }
    }

    static func holds(_ assertion: RegexAssertion, at position: Int, in text: [Unicode.Scalar]) -> Bool {
        switch assertion {
        case .beginText: return position == 0
        case .endText: return position == text.count
        case .beginLine: return position == 0 || text[position - 1] == "\n"
        case .endLine: return position == text.count || text[position] == "\n"
        case .wordBoundary, .notWordBoundary:
            let before = position > 0 && isWord(text[position - 1])
            let after = position < text.count && isWord(text[position])
            return (before != after) == (assertion == .wordBoundary)
        }
    }

    static func isWord(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        return (v >= 0x30 && v <= 0x39) || (v >= 0x41 && v <= 0x5A) || (v >= 0x61 && v <= 0x7A) || v == 0x5F
    }
}

/// The threads of one step: instructions in priority order with their captures, and which
/// instructions are already taken (a sparse set, cleared in constant time).
struct ThreadList {
    private var dense: [Int]
    private var sparse: [Int]
    private var captures: [[Int?]]
    /// Instructions reached this step (also those that consumed nothing).
    private var marked: Int = 0
    private var markedDense: [Int]
    private var markedSparse: [Int]
    private(set) var count = 0

    init(size: Int) {
        dense = Array(repeating: 0, count: size)
        sparse = Array(repeating: 0, count: size)
        captures = Array(repeating: [], count: size)
        markedDense = Array(repeating: 0, count: size)
        markedSparse = Array(repeating: 0, count: size)
    }

    var isEmpty: Bool { count == 0 }

    func contains(_ pc: Int) -> Bool {
        let k = markedSparse[pc]
        return k < marked && markedDense[k] == pc
    }

    mutating func mark(_ pc: Int) {
        markedSparse[pc] = marked
        markedDense[marked] = pc
        marked += 1
    }

    mutating func append(_ pc: Int, _ caps: [Int?]) {
        sparse[pc] = count
        dense[count] = pc
        captures[count] = caps
        count += 1
    }

    func thread(_ k: Int) -> (Int, [Int?]) { (dense[k], captures[k]) }

    mutating func clear() {
        count = 0
        marked = 0
    }
}
