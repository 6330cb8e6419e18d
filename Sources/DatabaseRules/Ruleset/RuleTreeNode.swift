import DatabaseModel

/// One level of a ruleset's tree: the rules at a path, its named children and its `$wildcard`.
final class RuleTreeNode: Sendable {
    let read: RuleSite?
    let write: RuleSite?
    let validate: RuleSite?
    /// `.indexOn`: the child paths (or `.value`) queries here may order by.
    let indexOn: [String]
    let children: [DatabaseKey: RuleTreeNode]
    let wildcard: (name: String, node: RuleTreeNode)?

    init(read: RuleSite?, write: RuleSite?, validate: RuleSite?, indexOn: [String], children: [DatabaseKey: RuleTreeNode],
         wildcard: (name: String, node: RuleTreeNode)?) {
        self.read = read
        self.write = write
        self.validate = validate
        self.indexOn = indexOn
        self.children = children
        self.wildcard = wildcard
    }

    func site(_ kind: RuleKind) -> RuleSite? {
        switch kind {
        case .read: read
        case .write: write
        case .validate: validate
        }
    }

    /// The rules for child `key`: a named child first, else the wildcard (capturing the key).
    func child(_ key: DatabaseKey, captures: inout [String: RuleValue]) -> RuleTreeNode? {
        if let named = children[key] { return named }
        guard let wildcard else { return nil }
        captures[wildcard.name] = .string(key.string)
        return wildcard.node
    }
}
