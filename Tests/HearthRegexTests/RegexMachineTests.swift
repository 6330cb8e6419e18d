import HearthRegex
import Testing

/// The shared engine alone, on trees built by hand (each dialect's parser has its own tests).
@Suite("Regex machine")
struct RegexMachineTests {
    static func char(_ c: Unicode.Scalar) -> RegexNode { .character(.scalar(c)) }
    static let ab: RegexNode = .concatenation([char("a"), char("b")])

    @Test("a search finds a match anywhere; anchored, only at the start; assertions hold where they should", arguments: [
        (ab, "xxab", false, true), (ab, "xxab", true, false), (ab, "abxx", true, true),
        (.concatenation([.assertion(.beginText), ab, .assertion(.endText)]), "ab", false, true),
        (.concatenation([.assertion(.beginText), ab, .assertion(.endText)]), "abb", false, false),
        (.concatenation([.assertion(.wordBoundary), ab, .assertion(.wordBoundary)]), "x ab y", false, true),
        (.concatenation([.assertion(.wordBoundary), ab, .assertion(.wordBoundary)]), "xab", false, false),
        (.concatenation([char("a"), .repetition(char("b"), min: 2, max: 3, greedy: true), .assertion(.endText)]), "abbb", false, true),
        (.concatenation([char("a"), .repetition(char("b"), min: 2, max: 3, greedy: true), .assertion(.endText)]), "abbbb", false, false),
        (.alternation([char("x"), ab]), "zab", false, true),
    ] as [(RegexNode, String, Bool, Bool)])
    func search(node: RegexNode, text: String, anchored: Bool, expected: Bool) throws {
        let machine = RegexMachine(program: try RegexProgram(node, groups: 0))
        #expect(machine.search(Array(text.unicodeScalars), anchored: anchored) == expected)
    }

    @Test("captures are the leftmost match's, greedy or not as asked")
    func captures() throws {
        let lazy: RegexNode = .group(.repetition(.character(.any(dotAll: true)), min: 0, max: nil, greedy: false), index: 1)
        let greedy: RegexNode = .group(.repetition(.character(.any(dotAll: true)), min: 0, max: nil, greedy: true), index: 1)
        let text = Array("<a><b>".unicodeScalars)
        for (inner, end) in [(lazy, 2), (greedy, 5)] {
            let program = try RegexProgram(.concatenation([Self.char("<"), inner, Self.char(">")]), groups: 1)
            let found = RegexMachine(program: program).firstMatch(in: text, from: 0, anchored: false, wholeText: false)
            #expect(found?[2] == 1 && found?[3] == end)
        }
    }

    @Test("case folding adds a letter's other cases to a class")
    func folding() {
        let folded = ScalarClass.scalar("k").foldingCase()
        #expect(folded.contains("K") && folded.contains("k") && !folded.contains("x"))
    }

    @Test("a program over its instruction limit is refused")
    func tooLarge() {
        let node: RegexNode = .repetition(Self.ab, min: 600, max: 600, greedy: true)
        #expect(throws: RegexProgram.TooLarge.self) { try RegexProgram(node, groups: 0, maxInstructions: 1_000) }
        #expect(throws: Never.self) { try RegexProgram(node, groups: 0) }
    }

    @Test("nested repetitions run in linear time")
    func linear() throws {
        let a = Self.char("a")
        let node: RegexNode = .concatenation([.assertion(.beginText), .repetition(.repetition(a, min: 1, max: nil, greedy: true), min: 1, max: nil, greedy: true),
                                              .assertion(.endText)])
        let machine = RegexMachine(program: try RegexProgram(node, groups: 0))
        let start = ContinuousClock.now
        #expect(machine.search(Array((String(repeating: "a", count: 20_000) + "!").unicodeScalars)) == false)
        #expect(ContinuousClock.now - start < .seconds(5))
    }
}
