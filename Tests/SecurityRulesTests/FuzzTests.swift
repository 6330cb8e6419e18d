import Foundation
import Testing
@testable import SecurityRules

/// Thousands of mutated rules sources and expressions, from a fixed seed: compiling and
/// deciding must never crash, parsing must consume each token at most once, and evaluation
/// must stay within the expression limit. Bounds are counts, not times.
@Suite("Fuzzing")
struct FuzzTests {
    /// `HEARTH_FUZZ_SCALE=10` runs ten times as many iterations (for a longer local hunt).
    static let scale = Int(ProcessInfo.processInfo.environment["HEARTH_FUZZ_SCALE"] ?? "") ?? 1

    static func corpus() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: Fixtures.exampleRules.path)) ?? []
        return names.filter { $0.hasSuffix(".rules") }.sorted().compactMap {
            try? String(contentsOf: Fixtures.exampleRules.appendingPathComponent($0), encoding: .utf8)
        }
    }

    static let requests: [RulesRequest] = {
        let auth = RuleValue.map(["auth": .map(["uid": .string("alice"), "token": .map([:])]), "time": .timestamp(RuleTimestamp(seconds: 0, nanos: 0)!)])
        let resource = RuleValue.map(["data": .map(["userId": .string("alice"), "participants": .list([.string("alice")])])])
        let paths: [[RulesRequest.PathElement]] = [
            ["databases", "(default)", "documents", "tasks", "t1"].map(RulesRequest.PathElement.segment),
            ["databases", "(default)", "documents", "bottles", "b1", "chat", "m1"].map(RulesRequest.PathElement.segment),
            [.segment("databases"), .segment("(default)"), .segment("documents"), .unknownRun, .segment("posts"), .unknownSegment],
            ["b", "bucket", "o", "users", "alice", "avatar.png"].map(RulesRequest.PathElement.segment),
        ]
        return paths.flatMap { path in
            RulesMethod.allCases.map { RulesRequest(method: $0, pathElements: path, variables: ["request": auth, "resource": resource]) }
        }
    }()

    struct AnythingExists: RulesDataSource {
        func resource(at path: RulePath) throws -> RuleValue? {
            .map(["data": .map(["participants": .list([.string("alice")]), "ownerId": .string("alice"), "status": .string("open")])])
        }
    }

    @Test("mutated rulesets never crash, and parsing and evaluation stay bounded")
    func mutatedRulesets() {
        var generator = SplitMix64(seed: 0x5EED_0001)
        let corpus = Self.corpus()
        #expect(!corpus.isEmpty)
        var compiled = 0
        var decided = 0
        for iteration in 0..<(2_000 * Self.scale) {
            let original = corpus[iteration % corpus.count]
            let text = Mutator.mutate(original, using: &generator)
            let source = RulesSource(name: "fuzz.rules", text: text)
            let compilation = Ruleset.compile(files: [source])
            #expect(compilation.parsedTokenCount <= source.scalars.count + 1, "parser made no progress on seed iteration \(iteration)")
            _ = compilation.renderedDiagnostics()
            guard let ruleset = compilation.ruleset else { continue }
            compiled += 1
            for request in Self.requests.prefix(iteration % 4 == 0 ? Self.requests.count : 3) {
                let decision = ruleset.decision(for: request, dataSource: AnythingExists())
                #expect(decision.expressionsEvaluated <= Evaluator.expressionLimit + 1)
                _ = decision.description
                decided += 1
            }
        }
        // The corpus mutates lightly often enough that many mutants still compile.
        #expect(compiled > 100)
        #expect(decided > 300)
    }

    @Test("mutated expressions never crash and evaluate within the limit")
    func mutatedExpressions() {
        var generator = SplitMix64(seed: 0x5EED_0002)
        let seeds = [
            "request.auth.uid == resource.data.owner && resource.data.tags.hasAny(['a', 'b'])",
            "math.round(latlng.value(1, 2).distance(latlng.value(3, 4)) / 1000) > 1",
            "timestamp.date(2024, 2, 29) + duration.value(1, 'd') < timestamp.value(9999999999999)",
            "'a,b,c'.split(',').join('-').matches('[a-c-]+') ? hashing.md5('x').toBase64() : string(1.5)",
            "{'a': {'b': [1, 2.0, null]}}.get(['a', 'b'], []).toSet().union([3]).size() == 4",
            "/databases/$(db)/documents/users/$(request.auth.uid)[3] == int('7') || b'\\xFF'.size() == 1",
            "[1, 2, 3][1:2].concat([4]) == [2, 4] && !(1 in []) && (x is string || x is int)",
        ]
        let variables: [String: RuleValue] = [
            "request": .map(["auth": .map(["uid": .string("u")])]), "resource": .map(["data": .map(["owner": .string("u"), "tags": .list([.string("a")])])]),
            "db": .string("(default)"), "x": .int(1),
        ]
        var evaluated = 0
        for iteration in 0..<(3_000 * Self.scale) {
            let text = Mutator.mutate(seeds[iteration % seeds.count], using: &generator)
            let evaluation = RulesExpression.evaluate(text, variables: variables)
            _ = evaluation.summary
            if evaluation.result != nil { evaluated += 1 }
        }
        #expect(evaluated > 100)
    }

    @Test("generated expressions over the whole library never crash")
    func generatedExpressions() {
        var generator = ExpressionGenerator(generator: SplitMix64(seed: 0x5EED_0003))
        let variables: [String: RuleValue] = [
            "request": .map(["auth": .null]), "resource": .map(["data": .map(["x": .list([.int(1)])])]),
        ]
        var outcomes: [String: Int] = [:]
        for _ in 0..<(4_000 * Self.scale) {
            let text = generator.expression()
            let evaluation = RulesExpression.evaluate(text, variables: variables, dataSource: AnythingExists())
            #expect(evaluation.result != nil, "\(text) did not compile: \(evaluation.summary)")
            switch evaluation.result {
            case .success(let value)?: outcomes[value.typeName, default: 0] += 1
            case .failure?: outcomes["error", default: 0] += 1
            case nil: break
            }
        }
        // Both values of many types and errors occur: the generator reaches deep into the library.
        #expect(outcomes.count >= 8, "\(outcomes)")
    }
}
