/// A compiled, checked ruleset: the only way to get one is ``compile(files:expectedService:globals:)``.
///
/// A ruleset is immutable and `Sendable`; decide any number of requests with it, from any
/// task. See ``decision(for:dataSource:ledger:)``.
package struct Ruleset: Sendable {
    /// The largest accepted rules source, summed over files (Firebase's 256 KiB limit).
    package static let maxSourceSize = 256 * 1024

    /// The service the rules are for.
    package let service: RulesService
    /// The compiled sources, indexed by ``SourceRange/file``.
    package let sources: [RulesSource]
    /// The global variables the rules may use (by default `request` and `resource`).
    package let globals: Set<String>
    /// Warnings from compilation.
    package let warnings: [Diagnostic]
    /// Whether every file declares `rules_version = '2'` (storage rules allow listing only then).
    package var isVersion2: Bool { !matches.isEmpty && matches.allSatisfy { $0.version == .v2 } }
    let matches: [CompiledMatch]
    let functions: [NodeID: FunctionInfo]
    let callTargets: [NodeID: NodeID]
    /// The user function each call node calls, indexed by the call's node raw value (a
    /// dense table: a lookup per call without hashing).
    var callTable: [FunctionInfo?] = []
    /// Every expression node, for explanations and coverage reports.
    let nodes: [NodeID: Expr]
    /// The function whose body contains each node, when any.
    let enclosingFunctions: [NodeID: String]
    /// Each allow statement's file, location, methods, condition text and full match path,
    /// computed once for decisions.
    var statementInfos: [NodeID: AllowStatementInfo] = [:]
    /// Whether any expression looks a document up (`get`, `exists`, `getAfter`, `existsAfter`,
    /// or `firestore.get`/`firestore.exists` in storage rules). When not, a decision never
    /// calls its data source, and a caller may decide outside the read it takes the resource from.
    package private(set) var readsDocuments = true

    /// Compiles rules files together: lexing, parsing and checking, collecting every
    /// diagnostic. Returns a ruleset only when there are no errors.
    ///
    /// - Parameters:
    ///   - files: The rules files; they must all declare the same service.
    ///   - expectedService: When given, blocks for another or an unknown service are warnings
    ///     and apply to nothing.
    ///   - globals: The variables the caller provides to every request.
    package static func compile(
        files: [RulesSource], expectedService: RulesService? = nil, globals: Set<String> = ["request", "resource"]
    ) -> RulesCompilation {
        let sources = files.isEmpty ? [RulesSource(name: "<no rules>", text: "")] : files
        let sink = DiagnosticSink(sources: sources)
        let size = files.reduce(0) { $0 + $1.text.utf8.count }
        guard size <= maxSourceSize else {
            sink.error("rules source is \(size) bytes; the limit is \(maxSourceSize) bytes", at: SourceRange(file: 0, start: 0, end: 0))
            return RulesCompilation(ruleset: nil, diagnostics: sink.sorted(), sources: sources, parsedTokenCount: 0)
        }
        let context = ParseContext(sink: sink)
        let parsed = sources.enumerated().map { Parser.parseFile($1, fileIndex: $0, context: context) }
        var checker = Checker(sink: sink, files: parsed, expectedService: expectedService, globals: globals)
        let matches = checker.check()
        let diagnostics = sink.sorted()
        guard !sink.hasErrors, let service = checker.service ?? expectedService else {
            return RulesCompilation(ruleset: nil, diagnostics: diagnostics, sources: sources, parsedTokenCount: context.consumedTokens)
        }
        var index = NodeIndex()
        for info in checker.functions.values {
            for binding in info.decl.bindings { index.add(binding.value, function: info.decl.name) }
            index.add(info.decl.body, function: info.decl.name)
        }
        index.addConditions(of: matches)
        var ruleset = Ruleset(
            service: service, sources: sources, globals: globals, warnings: diagnostics,
            matches: matches, functions: checker.functions, callTargets: checker.callTargets,
            nodes: index.nodes, enclosingFunctions: index.functions
        )
        ruleset.readsDocuments = index.nodes.values.contains(where: \.isDocumentLookup)
        ruleset.callTable = Array(repeating: nil, count: (checker.callTargets.keys.map(\.rawValue).max() ?? -1) + 1)
        for (call, target) in checker.callTargets { ruleset.callTable[call.rawValue] = checker.functions[target] }
        var pending = matches.map { ($0, "") }
        while let (match, outer) = pending.popLast() {
            let matchPath = outer + match.block.pattern.text
            for allow in match.allows {
                ruleset.statementInfos[allow.statement.id] = ruleset.statementInfo(allow.statement, matchPath: matchPath)
            }
            pending.append(contentsOf: match.children.map { ($0, matchPath) })
        }
        return RulesCompilation(ruleset: ruleset, diagnostics: diagnostics, sources: sources, parsedTokenCount: context.consumedTokens)
    }

    /// Where an allow statement is and what it says.
    func statementInfo(_ statement: AllowStatement, matchPath: String) -> AllowStatementInfo {
        let place = place(of: statement.range)
        return AllowStatementInfo(
            id: statement.id, fileName: place.fileName, location: place.location,
            methods: statement.methods.map(\.name), condition: statement.condition.map(text(of:)),
            matchPath: matchPath
        )
    }

    /// The user function a call node calls, if any.
    func calledFunction(_ call: NodeID) -> FunctionInfo? {
        callTable.indices.contains(call.rawValue) ? callTable[call.rawValue] : nil
    }

    /// The source text of an expression with runs of whitespace collapsed to one space.
    func text(of expr: Expr) -> String {
        guard sources.indices.contains(expr.range.file) else { return "" }
        return sources[expr.range.file].text(in: expr.range)
            .split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// The file name and location of a range.
    func place(of range: SourceRange) -> (fileName: String, location: LineColumn) {
        guard sources.indices.contains(range.file) else { return ("", LineColumn(line: 1, column: 1)) }
        return (sources[range.file].name, sources[range.file].location(of: range.start))
    }
}

/// Collects every expression node of a ruleset by ID.
extension Expr {
    static let lookupNames: Set<String> = ["get", "exists", "getAfter", "existsAfter"]

    /// A call that may look a document up: a global `get`, `exists`, `getAfter` or
    /// `existsAfter` (unless a user function of that name, which may itself look up, is meant:
    /// counted too), or one of those on the `firestore` namespace.
    var isDocumentLookup: Bool {
        switch kind {
        case .call(let name, _, _):
            return Self.lookupNames.contains(name)
        case .methodCall(let receiver, let name, _, _):
            if case .identifier("firestore") = receiver.kind { return Self.lookupNames.contains(name) }
            return false
        default:
            return false
        }
    }
}

struct NodeIndex {
    var nodes: [NodeID: Expr] = [:]
    var functions: [NodeID: String] = [:]

    mutating func add(_ expr: Expr, function: String?) {
        var pending = [expr]
        while let next = pending.popLast() {
            nodes[next.id] = next
            if let function { functions[next.id] = function }
            pending.append(contentsOf: next.kind.children)
        }
    }

    mutating func addConditions(of matches: [CompiledMatch]) {
        var pending = matches
        while let match = pending.popLast() {
            for allow in match.allows {
                if let condition = allow.statement.condition { add(condition, function: nil) }
            }
            pending.append(contentsOf: match.children)
        }
    }
}
