/// Semantic checks over parsed files, producing the match tree and function tables the
/// evaluator runs on.
///
/// Reports, as errors: an unsupported `rules_version`, a missing service, malformed recursive
/// wildcards, duplicate functions, parameters and `let` names, `let` in version 1 and recursive
/// functions. Reports as warnings, because the official emulator loads such rules: an unknown
/// or unexpected service (its block applies to nothing), unknown allow methods, undeclared
/// variables and functions, and wrong argument counts (evaluating those is an error value).
struct Checker {
    /// Production's and the emulator's limits on declarations (Firestore quotas page, checked
    /// against the emulator: 7 arguments, 11 `let`s, 10 nested matches below the outermost,
    /// 20 wildcards and 100 path segments through the enclosing matches).
    static let maxParameters = 7
    static let maxBindings = 11
    static let maxMatchDepth = 10
    static let maxCaptures = 20
    static let maxPathLength = 100

    let sink: DiagnosticSink
    let files: [RulesFile]
    let expectedService: RulesService?
    let globals: Set<String>

    var service: RulesService?
    var functions: [NodeID: FunctionInfo] = [:]
    var callTargets: [NodeID: NodeID] = [:]
    /// For each function, the functions its body calls (for recursion detection).
    var callGraph: [NodeID: [NodeID]] = [:]

    init(sink: DiagnosticSink, files: [RulesFile], expectedService: RulesService?, globals: Set<String>) {
        self.sink = sink
        self.files = files
        self.expectedService = expectedService
        self.globals = globals
    }

    /// Checks every file and returns the top-level compiled matches.
    mutating func check() -> [CompiledMatch] {
        var matches: [CompiledMatch] = []
        for file in files {
            let version = checkVersion(file)
            if file.services.isEmpty {
                sink.error("no 'service' block; expected 'service cloud.firestore { … }' or 'service firebase.storage { … }'",
                           at: SourceRange(file: file.fileIndex, start: 0, end: 0))
            }
            for decl in file.services {
                // With an expected service, as in the official emulator, a block for another or
                // an unknown service loads but applies to nothing.
                guard let kind = RulesService(rawValue: decl.name) else {
                    if let expectedService {
                        sink.warning("unknown service '\(decl.name)' applies to nothing; did you mean '\(expectedService.rawValue)'?", at: decl.nameRange)
                    } else {
                        sink.error("unknown service '\(decl.name)'; expected 'cloud.firestore' or 'firebase.storage'", at: decl.nameRange)
                    }
                    continue
                }
                if let expectedService, expectedService != kind {
                    sink.warning("these rules are for '\(kind.rawValue)' and apply to nothing here: '\(expectedService.rawValue)' rules were expected", at: decl.nameRange)
                    continue
                }
                if let service, service != kind {
                    sink.error("service '\(kind.rawValue)' conflicts with service '\(service.rawValue)' declared earlier", at: decl.nameRange)
                    continue
                }
                // (Two blocks of one service in one file are refused by the parser, as the emulator does.)
                service = kind
                let scope = Scope(parent: nil, variables: globals, matchDepth: 0, version: version)
                declareFunctions(decl.functions, in: scope)
                for match in decl.matches {
                    matches.append(checkMatch(match, in: scope, version: version))
                }
            }
        }
        checkRecursion()
        checkCallDepth()
        return matches
    }

    private func checkVersion(_ file: RulesFile) -> RulesVersion {
        guard let declaration = file.version else { return .v1 }
        guard let version = RulesVersion(rawValue: declaration.value) else {
            sink.error("unsupported rules_version '\(declaration.value)'; use '1' or '2'", at: declaration.range)
            return .v2
        }
        return version
    }

    /// Registers functions in a scope (reporting duplicates), then checks their bodies.
    private mutating func declareFunctions(_ decls: [FunctionDecl], in scope: Scope) {
        for decl in decls {
            if scope.functions[decl.name] != nil {
                sink.error("duplicate function '\(decl.name)'", at: decl.nameRange)
                continue
            }
            scope.functions[decl.name] = decl
            functions[decl.id] = FunctionInfo(decl: decl, scopeDepth: scope.matchDepth)
        }
        for decl in decls where functions[decl.id] != nil {
            checkFunction(decl, in: scope)
        }
    }

    private mutating func checkFunction(_ decl: FunctionDecl, in scope: Scope) {
        let local = Scope(parent: scope, variables: [], matchDepth: scope.matchDepth, version: scope.version)
        // The official emulator's limits, in its words (it accepts 11 `let`s although it says 10).
        if decl.parameters.count > Self.maxParameters {
            sink.error("Maximum allowed function arguments of \(Self.maxParameters) for function \(decl.name) is reached.", at: decl.nameRange)
        }
        if decl.bindings.count > Self.maxBindings {
            sink.error("Maximum allowed variable count of 10 for a given function has been reached.", at: decl.body.range)
        }
        for parameter in decl.parameters {
            if local.variables.contains(parameter.name) {
                sink.error("duplicate parameter '\(parameter.name)' in function '\(decl.name)'", at: parameter.range)
            }
            local.variables.insert(parameter.name)
        }
        var callees: [NodeID] = []
        for binding in decl.bindings {
            if scope.version == .v1 {
                sink.error("'let' bindings need rules_version = '2'", at: binding.nameRange)
            }
            checkExpression(binding.value, in: local, callees: &callees)
            if local.variables.contains(binding.name) {
                sink.error("'\(binding.name)' is already defined in function '\(decl.name)'", at: binding.nameRange)
            }
            local.variables.insert(binding.name)
        }
        checkExpression(decl.body, in: local, callees: &callees)
        callGraph[decl.id] = callees
    }

    private mutating func checkMatch(_ block: MatchBlock, in parent: Scope, version: RulesVersion) -> CompiledMatch {
        let scope = Scope(parent: parent, variables: [], matchDepth: parent.matchDepth + 1, version: version)
        scope.pathLength = parent.pathLength + block.pattern.segments.count
        scope.captureCount = parent.captureCount + block.pattern.segments.count { if case .literal = $0.kind { false } else { true } }
        let keyword = SourceRange(file: block.range.file, start: block.range.start, end: block.range.start + 5)
        if scope.pathLength > Self.maxPathLength, parent.pathLength <= Self.maxPathLength {
            sink.error("Maximum allowed path length of \(Self.maxPathLength) is reached.", at: keyword)
        }
        if scope.captureCount > Self.maxCaptures, parent.captureCount <= Self.maxCaptures {
            sink.error("Maximum allowed amount of \(Self.maxCaptures) match field variables is reached.", at: keyword)
        }
        if scope.matchDepth == Self.maxMatchDepth + 2 {
            // The outermost block (`/databases/{database}/documents`) is level 0.
            sink.error("Maximum allowed resource rule depth of \(Self.maxMatchDepth) is reached.", at: keyword)
        }
        var recursiveCount = 0
        for (index, segment) in block.pattern.segments.enumerated() {
            let name: String
            switch segment.kind {
            case .literal: continue
            case .wildcard(let wildcard): name = wildcard
            case .recursiveWildcard(let wildcard):
                name = wildcard
                recursiveCount += 1
                if version == .v1, index != block.pattern.segments.count - 1 {
                    sink.error("in rules_version '1' a recursive wildcard must be the last segment of a match path", at: segment.range)
                } else if recursiveCount > 1 {
                    sink.error("a match path may contain only one recursive wildcard", at: segment.range)
                }
            }
            if scope.variables.contains(name) {
                sink.error("wildcard '\(name)' appears twice in this match path", at: segment.range)
            } else if parent.isDeclared(name), !globals.contains(name) {
                sink.warning("wildcard '\(name)' hides a wildcard of an enclosing match", at: segment.range)
            }
            scope.variables.insert(name)
        }
        if block.pattern.segments.isEmpty {
            sink.error("match path has no segments", at: block.pattern.range)
        }
        declareFunctions(block.functions, in: scope)
        var allows: [CompiledAllow] = []
        for allow in block.allows {
            var methods: [AllowMethod] = []
            for method in allow.methods {
                guard let resolved = AllowMethod(rawValue: method.name) else {
                    let known = AllowMethod.allCases.map(\.rawValue).joined(separator: ", ")
                    sink.warning("unknown method '\(method.name)' allows nothing; expected one of \(known)", at: method.range)
                    continue
                }
                methods.append(resolved)
            }
            if let condition = allow.condition {
                var callees: [NodeID] = []
                checkExpression(condition, in: scope, callees: &callees)
            }
            allows.append(CompiledAllow(statement: allow, methods: methods))
        }
        let children = block.matches.map { checkMatch($0, in: scope, version: version) }
        return CompiledMatch(block: block, version: version, allows: allows, children: children)
    }
}

/// A lexical scope of the checker: variables and functions visible at a point of the rules.
final class Scope {
    let parent: Scope?
    var variables: Set<String>
    var functions: [String: FunctionDecl] = [:]
    let matchDepth: Int
    let version: RulesVersion
    /// Path segments of this match and the enclosing ones.
    var pathLength = 0
    /// Wildcards of this match and the enclosing ones.
    var captureCount = 0

    init(parent: Scope?, variables: Set<String>, matchDepth: Int, version: RulesVersion) {
        self.parent = parent
        self.variables = variables
        self.matchDepth = matchDepth
        self.version = version
    }

    func isDeclared(_ name: String) -> Bool {
        variables.contains(name) || parent?.isDeclared(name) == true
    }

    func function(named name: String) -> FunctionDecl? {
        functions[name] ?? parent?.function(named: name)
    }
}
