/// Files, services, match blocks, allow statements and functions.
extension Parser {
    mutating func parseFile() -> RulesFile {
        var version: VersionDeclaration?
        if case .identifier("rules_version") = current.kind {
            version = parseVersion()
        }
        var services: [ServiceDecl] = []
        var fileFunctions: [FunctionDecl] = [] // outside any service: visible in every service
        while !isAtEnd {
            if check(.service) {
                if let service = parseService() {
                    if services.contains(where: { $0.name == service.name }) {
                        sink.error("Duplicate service name declaration: \(service.name)", at: service.nameRange)
                    }
                    services.append(service)
                }
            } else if check(.function) {
                if let function = parseFunction() { fileFunctions.append(function) }
            } else {
                if case .identifier("rules_version") = current.kind {
                    sink.error("'rules_version' must come first in the file", at: current.range)
                } else {
                    sink.error("expected 'service', found \(describe(current.kind))", at: current.range)
                }
                advance()
                synchronize()
            }
        }
        if !fileFunctions.isEmpty {
            // As the official emulator: a function of the service shadows a file-level one.
            services = services.map { service in
                let own = Set(service.functions.map(\.name))
                return ServiceDecl(name: service.name, nameRange: service.nameRange,
                                   functions: fileFunctions.filter { !own.contains($0.name) } + service.functions,
                                   matches: service.matches)
            }
        }
        return RulesFile(fileIndex: fileIndex, version: version, services: services)
    }

    private mutating func parseVersion() -> VersionDeclaration? {
        advance()
        guard expect(.assign, "after 'rules_version'") else {
            synchronize()
            return nil
        }
        guard case .string(let value) = current.kind else {
            sink.error("expected a string such as '2' after 'rules_version =', found \(describe(current.kind))", at: current.range)
            synchronize()
            return nil
        }
        let range = current.range
        advance()
        _ = accept(.semicolon)
        return VersionDeclaration(value: value, range: range)
    }

    private mutating func parseService() -> ServiceDecl? {
        advance()
        guard let first = expectIdentifier("a service name such as 'cloud.firestore'") else {
            synchronize()
            return nil
        }
        var name = first.name
        var nameRange = first.range
        while accept(.dot) {
            guard let part = expectIdentifier("a name after '.'") else { break }
            name += "." + part.name
            nameRange = nameRange.extended(to: part.range)
        }
        guard expect(.leftBrace, "to open the service block") else {
            synchronize()
            return nil
        }
        let emptyBody = check(.rightBrace)
        var functions: [FunctionDecl] = []
        var matches: [MatchBlock] = []
        while !isAtEnd, !check(.rightBrace) {
            if check(.function) {
                if let function = parseFunction() { functions.append(function) }
            } else if check(.match) {
                if let match = parseMatch() { matches.append(match) }
            } else {
                let hint = check(.allow) ? " ('allow' must be inside a 'match' block)" : ""
                sink.error("expected 'match' or 'function', found \(describe(current.kind))\(hint)", at: current.range)
                advance()
                synchronize()
            }
        }
        if emptyBody {
            sink.error("The 'service' body must contain at least one declaration.", at: nameRange)
        }
        expect(.rightBrace, "to close the service block")
        return ServiceDecl(name: name, nameRange: nameRange, functions: functions, matches: matches)
    }

    mutating func parseMatch() -> MatchBlock? {
        let start = current.range
        matchDepth += 1
        defer { matchDepth -= 1 }
        guard matchDepth <= Self.maxMatchDepth else {
            sink.error("match blocks are nested too deeply (more than \(Self.maxMatchDepth) levels)", at: start)
            advance()
            skipBlock()
            return nil
        }
        advance()
        guard case .matchPath = current.kind else {
            sink.error("expected a path starting with '/' after 'match', found \(describe(current.kind))", at: current.range)
            synchronize()
            return nil
        }
        let pattern = parseMatchPattern(current.range)
        let hasGlob = pattern.segments.contains { if case .recursiveWildcard = $0.kind { true } else { false } }
        if hasGlob, insideGlob {
            sink.error("Only one glob match is permitted: an enclosing match already has a recursive wildcard", at: pattern.range)
        }
        let outerGlob = insideGlob
        insideGlob = insideGlob || hasGlob
        defer { insideGlob = outerGlob }
        advance()
        guard expect(.leftBrace, "to open the match block") else {
            synchronize()
            return nil
        }
        let emptyBody = check(.rightBrace)
        var functions: [FunctionDecl] = []
        var matches: [MatchBlock] = []
        var allows: [AllowStatement] = []
        while !isAtEnd, !check(.rightBrace) {
            if check(.function) {
                if let function = parseFunction() { functions.append(function) }
            } else if check(.match) {
                if let match = parseMatch() { matches.append(match) }
            } else if check(.allow) {
                if let allow = parseAllow() { allows.append(allow) }
            } else {
                sink.error("expected 'allow', 'match' or 'function', found \(describe(current.kind))", at: current.range)
                advance()
                synchronize()
            }
        }
        if emptyBody {
            sink.error("The 'match' body must contain at least one declaration.", at: start)
        }
        expect(.rightBrace, "to close the match block")
        return MatchBlock(
            id: context.makeID(), pattern: pattern, range: start.extended(to: previousRange),
            functions: functions, matches: matches, allows: allows
        )
    }

    /// Skips up to and including the next block (`{ … }`), without recursion.
    private mutating func skipBlock() {
        var depth = 0
        while !isAtEnd {
            if check(.leftBrace) { depth += 1 }
            if check(.rightBrace) {
                if depth == 0 { return }
                depth -= 1
                if depth == 0 {
                    advance()
                    return
                }
            }
            advance()
        }
    }

    private mutating func parseAllow() -> AllowStatement? {
        sink.isMuted = false
        defer { sink.isMuted = false }
        let start = current.range
        advance()
        var methods: [(name: String, range: SourceRange)] = []
        repeat {
            guard let method = expectIdentifier("a method such as 'read' or 'write'") else {
                synchronize()
                return nil
            }
            // Method names are case-insensitive in the official emulator (`allow READ`).
            methods.append((method.name.lowercased(), method.range))
        } while accept(.comma)
        var condition: Expr?
        if accept(.colon) {
            guard accept(.if) else {
                sink.error("expected 'if' after ':' in allow statement, found \(describe(current.kind))", at: current.range)
                synchronize()
                return nil
            }
            condition = parseExpression()
        }
        let end = previousRange
        if !accept(.semicolon), !check(.rightBrace), !check(.allow), !check(.match), !check(.function) {
            sink.error("expected ';' after allow statement, found \(describe(current.kind))", at: current.range)
            synchronize()
        }
        return AllowStatement(id: context.makeID(), methods: methods, condition: condition, range: start.extended(to: end))
    }

    /// A namespace (`math`, `timestamp`, …) cannot name a variable, as in the emulator.
    func refusePackageName(_ name: (name: String, range: SourceRange)) {
        if BuiltinFunctions.namespaces[name.name] != nil {
            sink.error("\(name.name) is a package and cannot be used as variable name", at: name.range)
        }
    }

    mutating func parseFunction() -> FunctionDecl? {
        sink.isMuted = false
        defer { sink.isMuted = false }
        let start = current.range
        advance()
        guard let name = expectIdentifier("a function name") else {
            synchronize()
            return nil
        }
        if name.name == "import" { sink.error("'import' is reserved and cannot name a function", at: name.range) }
        guard expect(.leftParen, "after the function name") else {
            synchronize()
            return nil
        }
        var parameters: [(name: String, range: SourceRange)] = []
        if !check(.rightParen) {
            repeat {
                guard let parameter = expectIdentifier("a parameter name") else {
                    synchronize()
                    return nil
                }
                refusePackageName(parameter)
                parameters.append(parameter)
            } while accept(.comma)
        }
        guard expect(.rightParen, "to close the parameter list"), expect(.leftBrace, "to open the function body") else {
            synchronize()
            return nil
        }
        var bindings: [LetBinding] = []
        while accept(.let) {
            guard let bound = expectIdentifier("a name after 'let'"), expect(.assign, "after the 'let' name") else {
                synchronize()
                continue
            }
            refusePackageName(bound)
            let value = parseExpression()
            expect(.semicolon, "after the 'let' binding")
            sink.isMuted = false
            bindings.append(LetBinding(name: bound.name, nameRange: bound.range, value: value))
        }
        guard accept(.return) else {
            sink.error("expected 'return' in the body of function '\(name.name)', found \(describe(current.kind))", at: current.range)
            synchronize()
            if check(.rightBrace) { advance() }
            return nil
        }
        let body = parseExpression()
        _ = accept(.semicolon)
        expect(.rightBrace, "to close the function body")
        return FunctionDecl(
            id: context.makeID(), name: name.name, nameRange: name.range, parameters: parameters,
            bindings: bindings, body: body, range: start.extended(to: previousRange)
        )
    }
}
