import Testing
@testable import SecurityRules

@Suite("Parser")
struct ParserTests {
    @Test("every node in a file has a unique ID")
    func uniqueNodeIDs() throws {
        let source = RulesSource(name: "t.rules", text: """
        rules_version = '2';
        service cloud.firestore {
          function f(a) { let b = a + 1; return b > /x/$(a)[0].size(); }
          match /databases/{database}/documents {
            match /a/{b} { allow read: if f(1) && [1, {'k': b}][1].k == b; allow write; }
          }
        }
        """)
        let (file, diagnostics) = RulesFile.parse(source)
        #expect(diagnostics.isEmpty)
        var ids: [NodeID] = []
        func collect(_ expr: Expr) {
            ids.append(expr.id)
            expr.kind.children.forEach(collect)
        }
        func collect(_ match: MatchBlock) {
            ids.append(match.id)
            match.allows.forEach { ids.append($0.id); $0.condition.map(collect) }
            match.functions.forEach(collect)
            match.matches.forEach(collect)
        }
        func collect(_ function: FunctionDecl) {
            ids.append(function.id)
            function.bindings.forEach { collect($0.value) }
            collect(function.body)
        }
        let service = try #require(file.services.first)
        service.functions.forEach(collect)
        service.matches.forEach(collect)
        #expect(ids.count > 20)
        #expect(Set(ids).count == ids.count)
    }

    @Test("expression ranges cover their source text", arguments: [
        "a.b.c", "f(x, y)", "[1, 2]", "{'a': 1}", "(a || b)", "x[1:2]", "-x", "!x", "a ? b : c", "x is int",
        "/p/$(q)", "m.get('k', 0)",
    ])
    func ranges(_ text: String) {
        let (expr, diagnostics) = Expr.parse(text)
        #expect(diagnostics.isEmpty)
        #expect(expr.range.start == 0 && expr.range.end == text.unicodeScalars.count)
    }

    @Test("interpolated expressions keep ranges in the enclosing file")
    func interpolationRanges() throws {
        let text = "/a/$(b.c)/d"
        let (expr, _) = Expr.parse(text)
        guard case .path(let segments) = expr.kind, case .interpolation(let inner) = segments[1].pieces[0] else {
            Issue.record("not a path: \(expr)")
            return
        }
        let source = RulesSource(name: "<expression>", text: text)
        #expect(source.text(in: inner.range) == "b.c")
        #expect(segments.map { source.text(in: $0.range) } == ["a", "$(b.c)", "d"])
    }

    @Test("the parser reports every broken statement, not just the first")
    func recovery() {
        let source = RulesSource(name: "t.rules", text: """
        service cloud.firestore {
          match /a/{b} {
            allow read: if (;
            allow write: if ];
            allow delete: if ok;
            allow get if x;
          }
        }
        """)
        let (file, diagnostics) = RulesFile.parse(source)
        #expect(diagnostics.map(\.location.line) == [3, 4, 6])
        #expect(file.services.first?.matches.first?.allows.count == 4)
    }

    @Test("deep nesting gets a diagnostic instead of exhausting the stack", arguments: [10_000, 100_000])
    func deepNesting(_ depth: Int) {
        let opens = String(repeating: "(", count: depth)
        let closes = String(repeating: ")", count: depth)
        let (_, diagnostics) = Expr.parse(opens + "1" + closes)
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.message.contains("too complex to evaluate safely") == true)

        let matches = String(repeating: "match /a { ", count: depth) + String(repeating: "} ", count: depth)
        let (_, fileDiagnostics) = RulesFile.parse(RulesSource(name: "t", text: "service cloud.firestore { \(matches) }"))
        #expect(fileDiagnostics.contains { $0.message.contains("match blocks are nested too deeply") })
    }

    @Test("long flat chains are rejected by height, not by recursion")
    func longChains() {
        let sum = Array(repeating: "1", count: 50_000).joined(separator: "+")
        let (_, diagnostics) = Expr.parse(sum)
        #expect(diagnostics.count == 1)
        let members = "a" + String(repeating: ".b", count: 50_000)
        #expect(Expr.parse(members).diagnostics.count == 1)
    }
}
