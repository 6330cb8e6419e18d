import Foundation
@testable import SecurityRules

/// Runs goldenscript blocks against the rules pipeline, keeping state between blocks of one
/// file: variables, the compiled ruleset, stored resources, a shared batch ledger and
/// accumulated coverage.
///
/// Commands:
/// - `tokens`: lex the input; one token per line as `line:col kind`.
/// - `parse`: parse the input as a rules file; the outline, then any diagnostics.
/// - `parse-expr`: parse the input as an expression; its s-expression, then any diagnostics.
/// - `compile [name=<file>] [file=<repository path>] [service=<service>]`: compile the input
///   (or the named repository file); `ok` or diagnostics with carets. The ruleset is kept for
///   `decide`.
/// - `vars`: lines `name = expression` (indented lines continue the previous one); sets
///   variables for later `eval` and `decide` blocks.
/// - `eval`: evaluate the input expression with the variables; the value or `error: …`.
/// - `data`: lines `/path = expression`, `after /path = expression` or `deleted-after /path`.
/// - `decide <method> <path>`: decide a request; input lines are per-request variables.
///   `{?}` in the path is an unknown segment, `{?=**}` an unknown run.
/// - `batch-begin` / `batch-end`: share one 20-lookup ledger across the decides in between.
/// - `coverage`: per-expression counters accumulated since the last `compile`.
final class GoldenscriptRunner {
    var variables: [String: RuleValue] = [:]
    var ruleset: Ruleset?
    var data = StaticRulesDataSource()
    var batchLedger: RulesLookupLedger?
    var coverage = RulesCoverage()

    func run(_ block: Goldenscript.Block) -> [String] {
        let input = block.input.joined(separator: "\n")
        switch block.command {
        case "tokens":
            let source = RulesSource(name: "tokens.rules", text: input)
            let (tokens, diagnostics) = Lexer.tokenize(source)
            return tokens.map { "\(source.location(of: $0.range.start)) \($0.kind)" } + diagnostics.map(\.description)
        case "parse":
            let (file, diagnostics) = RulesFile.parse(RulesSource(name: "parse.rules", text: input))
            return lines(file.description) + diagnostics.map(\.description)
        case "parse-expr":
            let (expr, diagnostics) = Expr.parse(input)
            return [expr.description] + diagnostics.map(\.description)
        case "compile":
            return compile(input, arguments: block.arguments)
        case "vars":
            return assignments(block.input) { name, value in self.variables[name] = value }
        case "eval":
            let evaluation = RulesExpression.evaluate(input, variables: variables, dataSource: data)
            return lines(evaluation.summary) + evaluation.debugOutput.map { "debug: \($0)" }
        case "data":
            return loadData(block.input)
        case "decide":
            return decide(block.arguments, block.input)
        case "batch-begin":
            batchLedger = RulesLookupLedger(limit: RulesLookupLedger.batchLimit)
            return ["ok"]
        case "batch-end":
            defer { batchLedger = nil }
            return ["lookups: \(batchLedger?.count ?? 0)"]
        case "coverage":
            return coverageReport()
        default:
            return ["unknown command '\(block.command)'"]
        }
    }

    private func lines(_ text: String) -> [String] {
        text.components(separatedBy: "\n")
    }

    private func compile(_ text: String, arguments: [String]) -> [String] {
        let options = Self.options(arguments)
        var text = text
        var name = options["name"] ?? "firestore.rules"
        if let file = options["file"] {
            let url = Fixtures.repositoryRoot.appendingPathComponent(file)
            guard let contents = try? String(contentsOf: url, encoding: .utf8) else { return ["cannot read \(file)"] }
            text = contents
            name = url.lastPathComponent
        }
        let source = RulesSource(name: name, text: text)
        let compilation = Ruleset.compile(files: [source], expectedService: options["service"].flatMap(RulesService.init(rawValue:)))
        ruleset = compilation.ruleset
        coverage = RulesCoverage()
        let rendered = compilation.renderedDiagnostics()
        if compilation.ruleset != nil {
            return rendered.isEmpty ? ["ok"] : ["ok"] + lines(rendered)
        }
        return lines(rendered)
    }

    /// Parses `name = expression` lines (continued by indented lines) and evaluates each.
    private func assignments(_ input: [String], _ assign: (String, RuleValue) -> Void) -> [String] {
        var output: [String] = []
        for (name, expression) in Self.statements(input) {
            let evaluation = RulesExpression.evaluate(expression, variables: variables, dataSource: data)
            switch evaluation.result {
            case .success(let value)?: assign(name, value)
            default: output.append("\(name): \(evaluation.summary)")
            }
        }
        return output.isEmpty ? ["ok"] : output
    }

    static func statements(_ input: [String]) -> [(String, String)] {
        var joined: [String] = []
        for line in input where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            if line.hasPrefix(" "), !joined.isEmpty {
                joined[joined.count - 1] += "\n" + line
            } else {
                joined.append(line)
            }
        }
        return joined.compactMap { statement in
            guard let equals = statement.range(of: " = ") else { return nil }
            return (String(statement[..<equals.lowerBound]).trimmingCharacters(in: .whitespaces),
                    String(statement[equals.upperBound...]))
        }
    }

    private func loadData(_ input: [String]) -> [String] {
        var output: [String] = []
        for line in input where line.hasPrefix("deleted-after ") {
            data.deletedAfter.insert(RulePath(parsing: String(line.dropFirst("deleted-after ".count))))
        }
        let statements = Self.statements(input.filter { !$0.hasPrefix("deleted-after ") })
        for (target, expression) in statements {
            let isAfter = target.hasPrefix("after ")
            let path = RulePath(parsing: isAfter ? String(target.dropFirst("after ".count)) : target)
            let evaluation = RulesExpression.evaluate(expression, variables: variables)
            guard case .success(let value)? = evaluation.result else {
                output.append("\(target): \(evaluation.summary)")
                continue
            }
            if isAfter { data.after[path] = value } else { data.before[path] = value }
        }
        return output.isEmpty ? ["ok"] : output
    }

    private func decide(_ arguments: [String], _ input: [String]) -> [String] {
        guard let ruleset else { return ["no ruleset compiled"] }
        guard arguments.count >= 2, let method = RulesMethod(rawValue: arguments[0]) else {
            return ["usage: decide <get|list|create|update|delete> <path>"]
        }
        let elements: [RulesRequest.PathElement] = arguments[1].split(separator: "/").map { segment in
            switch segment {
            case "{?}": .unknownSegment
            case "{?=**}": .unknownRun
            default: .segment(String(segment))
            }
        }
        var requestVariables = variables
        var output: [String] = []
        for (name, expression) in Self.statements(input) {
            let evaluation = RulesExpression.evaluate(expression, variables: requestVariables, dataSource: data)
            guard case .success(let value)? = evaluation.result else {
                output.append("\(name): \(evaluation.summary)")
                continue
            }
            requestVariables[name] = value
        }
        let request = RulesRequest(method: method, pathElements: elements, variables: requestVariables)
        var ledger = batchLedger ?? RulesLookupLedger()
        let decision = ruleset.decision(for: request, dataSource: data, ledger: &ledger)
        if batchLedger != nil { batchLedger = ledger }
        coverage.merge(decision.coverage)
        output.append(contentsOf: lines(decision.description))
        if ledger.count > 0 { output.append("  lookups: " + ledger.keys.map(\.description).joined(separator: ", ")) }
        return output
    }

    private func coverageReport() -> [String] {
        guard let ruleset else { return ["no ruleset compiled"] }
        return ruleset.expressionSites.map { site in
            let counts = coverage[site.id]
            return "\(site.location) `\(site.text)` true=\(counts.trueCount) false=\(counts.falseCount) "
                + "value=\(counts.valueCount) error=\(counts.errorCount)"
        }
    }

    static func options(_ arguments: [String]) -> [String: String] {
        var options: [String: String] = [:]
        for argument in arguments {
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { options[parts[0]] = parts[1] }
        }
        return options
    }
}
