/// An indented outline of a parsed file, used by parser tests.
extension RulesFile: CustomStringConvertible {
    package var description: String {
        var lines: [String] = []
        if let version { lines.append("rules_version \(RuleValue.string(version.value))") }
        for service in services {
            lines.append("service \(service.name)")
            for function in service.functions { lines.append(contentsOf: Self.outline(function, indent: "  ")) }
            for match in service.matches { lines.append(contentsOf: Self.outline(match, indent: "  ")) }
        }
        return lines.joined(separator: "\n")
    }

    private static func outline(_ function: FunctionDecl, indent: String) -> [String] {
        var lines = ["\(indent)function \(function.name)(\(function.parameters.map(\.name).joined(separator: ", ")))"]
        for binding in function.bindings { lines.append("\(indent)  let \(binding.name) = \(binding.value)") }
        lines.append("\(indent)  return \(function.body)")
        return lines
    }

    private static func outline(_ match: MatchBlock, indent: String) -> [String] {
        var lines = ["\(indent)match \(match.pattern.text)"]
        let inner = indent + "  "
        for function in match.functions { lines.append(contentsOf: outline(function, indent: inner)) }
        for allow in match.allows {
            let methods = allow.methods.map(\.name).joined(separator: ", ")
            lines.append("\(inner)allow \(methods)" + (allow.condition.map { ": \($0)" } ?? ""))
        }
        for child in match.matches { lines.append(contentsOf: outline(child, indent: inner)) }
        return lines
    }
}
