import DatabaseModel

/// Builds a ruleset's tree from a parsed rules file, collecting every problem rather than
/// stopping at the first: the root must be `{"rules": {…}}`; rule keys are `.read`, `.write`,
/// `.validate` (a boolean or an expression string) and `.indexOn` (a string or array of
/// strings); other keys are children, at most one `$wildcard` per level and no `$name` twice on
/// one branch; each expression must parse and type-check (``RuleChecker``).
struct RulesCompiler {
    var diagnostics: [RulesDiagnostic] = []
    var sites: [RuleSite] = []

    mutating func compile(_ document: RulesDocument) -> RuleTreeNode? {
        guard case .object(let members, let position) = document else {
            diagnostics.append(RulesDiagnostic(position: document.position, message: "The rules must be a JSON object."))
            return nil
        }
        guard members.count == 1, members[0].key == "rules" else {
            diagnostics.append(RulesDiagnostic(position: position, message: "Rules definition must have a single root object with property \"rules\"."))
            return nil
        }
        return node(members[0].value, path: [], wildcards: [])
    }

    mutating func node(_ document: RulesDocument, path: [String], wildcards: [String]) -> RuleTreeNode? {
        guard case .object(let members, _) = document else {
            diagnostics.append(RulesDiagnostic(position: document.position, message: "Rules for \(Self.text(path)) must be an object."))
            return nil
        }
        var sitesByKind: [RuleKind: RuleSite] = [:]
        var indexOn: [String] = []
        var children: [DatabaseKey: RuleTreeNode] = [:]
        var wildcard: (String, RuleTreeNode)?
        for (key, keyPosition, value) in members {
            if key.hasPrefix(".") {
                if key == ".indexOn" {
                    indexOn = self.indexOn(value)
                } else if let kind = RuleKind(rawValue: key) {
                    if let site = site(kind, value, path: path, wildcards: wildcards) { sitesByKind[kind] = site }
                } else {
                    diagnostics.append(RulesDiagnostic(position: keyPosition, message: "Invalid key: \(key): rule keys are .read, .write, .validate and .indexOn."))
                }
            } else if key.hasPrefix("$") {
                if wildcard != nil {
                    diagnostics.append(RulesDiagnostic(position: keyPosition, message: "There can only be one wildcard ($) child at \(Self.text(path))."))
                    continue
                }
                if wildcards.contains(key) {
                    diagnostics.append(RulesDiagnostic(position: keyPosition, message: "Wildcard \(key) is already used higher on this path."))
                    continue
                }
                guard key.count > 1, key.dropFirst().allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                    diagnostics.append(RulesDiagnostic(position: keyPosition, message: "Invalid wildcard name \(key)."))
                    continue
                }
                if let child = node(value, path: path + [key], wildcards: wildcards + [key]) { wildcard = (key, child) }
            } else {
                guard KeyRules.isValidKey(key) else {
                    diagnostics.append(RulesDiagnostic(position: keyPosition, message: "Invalid key \(key): keys can't contain . # $ / [ ] or control characters."))
                    continue
                }
                if let child = node(value, path: path + [key], wildcards: wildcards) { children[DatabaseKey(key)] = child }
            }
        }
        return RuleTreeNode(read: sitesByKind[.read], write: sitesByKind[.write], validate: sitesByKind[.validate],
                            indexOn: indexOn, children: children, wildcard: wildcard)
    }

    mutating func indexOn(_ value: RulesDocument) -> [String] {
        switch value {
        case .string(let s, _): return [s]
        case .array(let items, _):
            var out: [String] = []
            for item in items {
                guard case .string(let s, _) = item else {
                    diagnostics.append(RulesDiagnostic(position: item.position, message: ".indexOn must be a string or an array of strings."))
                    continue
                }
                out.append(s)
            }
            return out
        default:
            diagnostics.append(RulesDiagnostic(position: value.position, message: ".indexOn must be a string or an array of strings."))
            return []
        }
    }

    mutating func site(_ kind: RuleKind, _ value: RulesDocument, path: [String], wildcards: [String]) -> RuleSite? {
        let rulesPath = Self.text(path)
        switch value {
        case .bool(let b, let position):
            let site = RuleSite(id: sites.count, kind: kind, rulesPath: rulesPath, source: b ? "true" : "false", position: position,
                                expression: nil, constant: b)
            sites.append(site)
            return site
        case .string(let text, let position):
            do {
                let expr = try RuleParser.parse(text)
                try RuleChecker(scope: RuleChecker.scope(for: kind, wildcards: wildcards)).checkRule(expr)
                let site = RuleSite(id: sites.count, kind: kind, rulesPath: rulesPath, source: text, position: position,
                                    expression: expr, constant: false)
                sites.append(site)
                return site
            } catch {
                diagnostics.append(RulesDiagnostic(position: Self.position(of: error.offset, in: text, start: position),
                                                   message: "\(kind.rawValue) at \(rulesPath): \(error.message)"))
                return nil
            }
        default:
            diagnostics.append(RulesDiagnostic(position: value.position, message: "\(kind.rawValue) must be a boolean or a string expression."))
            return nil
        }
    }

    /// Where an offset inside a rule's string lands in the file (the string starts at its quote).
    static func position(of offset: Int, in text: String, start: SourcePosition) -> SourcePosition {
        var line = start.line, column = start.column + 1
        for b in text.utf8.prefix(offset) {
            if b == 0x0A {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return SourcePosition(line: line, column: column)
    }

    static func text(_ path: [String]) -> String { "/" + path.joined(separator: "/") }
}
