/// A compiled pattern: instructions of a Thompson automaton, run by ``RegexMachine`` in time
/// proportional to the text times the program, whatever the pattern (no backtracking).
package struct RegexProgram: Sendable {
    enum Instruction: Sendable {
        /// Consume one character of the class.
        case character(ScalarClass)
        /// Continue at both, the first preferred.
        case split(Int, Int)
        case jump(Int)
        /// Record the position in capture slot n.
        case save(Int)
        case assertion(RegexAssertion)
        case match
    }

    /// A pattern whose program would pass the size limit.
    package struct TooLarge: Error {}

    let instructions: [Instruction]
    /// Capture slots: two per group, group 0 being the whole match.
    package let slots: Int

    /// Compiles `node`, whose capturing groups are numbered 1 to `groups`; at most
    /// `maxInstructions` instructions (RE2 also bounds a program's size).
    package init(_ node: RegexNode, groups: Int, maxInstructions: Int = 100_000) throws(TooLarge) {
        var compiler = Compiler(maxInstructions: maxInstructions)
        compiler.emit(.save(0))
        try compiler.compile(node)
        compiler.emit(.save(1))
        compiler.emit(.match)
        instructions = compiler.code
        slots = 2 * (groups + 1)
    }

    private struct Compiler {
        let maxInstructions: Int
        var code: [Instruction] = []

        mutating func emit(_ instruction: Instruction) {
            code.append(instruction)
        }

        /// Appends a placeholder to patch later; returns its address.
        mutating func hole() -> Int {
            code.append(.match)
            return code.count - 1
        }

        mutating func compile(_ node: RegexNode) throws(TooLarge) {
            guard code.count <= maxInstructions else { throw TooLarge() }
            switch node {
            case .empty:
                break
            case .character(let set):
                emit(.character(set))
            case .assertion(let assertion):
                emit(.assertion(assertion))
            case .group(let body, let index):
                if let index { emit(.save(2 * index)) }
                try compile(body)
                if let index { emit(.save(2 * index + 1)) }
            case .concatenation(let nodes):
                for n in nodes { try compile(n) }
            case .alternation(let nodes):
                var exits: [Int] = []
                for (k, n) in nodes.enumerated() {
                    if k == nodes.count - 1 {
                        try compile(n)
                    } else {
                        let split = hole()
                        try compile(n)
                        exits.append(hole())
                        code[split] = .split(split + 1, code.count)
                    }
                }
                for exit in exits { code[exit] = .jump(code.count) }
            case .repetition(let body, let min, let max, let greedy):
                for _ in 0..<min { try compile(body) }
                if let max {
                    // Each optional copy may be skipped, and skipping one skips the rest.
                    var skips: [Int] = []
                    for _ in min..<max {
                        skips.append(hole())
                        try compile(body)
                    }
                    for skip in skips { code[skip] = greedy ? .split(skip + 1, code.count) : .split(code.count, skip + 1) }
                } else {
                    let loop = hole()
                    try compile(body)
                    emit(.jump(loop))
                    code[loop] = greedy ? .split(loop + 1, code.count) : .split(code.count, loop + 1)
                }
            }
        }
    }
}
