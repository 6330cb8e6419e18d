/// A match block after checking: its pattern, allow statements and nested blocks, ready for
/// path matching and evaluation.
struct CompiledMatch: Sendable {
    /// The checked block.
    let block: MatchBlock
    /// The language version of the file the block is in.
    let version: RulesVersion
    /// The block's allow statements with their methods resolved.
    let allows: [CompiledAllow]
    /// Nested blocks.
    let children: [CompiledMatch]
    /// The pattern's segment kinds, for path matching.
    let kinds: [PathPattern.Kind]
    /// The position of the recursive wildcard in ``kinds``, if any.
    let recursiveIndex: Int?

    init(block: MatchBlock, version: RulesVersion, allows: [CompiledAllow], children: [CompiledMatch]) {
        self.block = block
        self.version = version
        self.allows = allows
        self.children = children
        kinds = block.pattern.segments.map(\.kind)
        recursiveIndex = kinds.firstIndex { if case .recursiveWildcard = $0 { true } else { false } }
    }
}

/// An allow statement with its methods resolved.
struct CompiledAllow: Sendable {
    let statement: AllowStatement
    let methods: [AllowMethod]

    func covers(_ method: RulesMethod) -> Bool {
        methods.contains { $0.covers(method) }
    }
}

/// A user function and where it is visible from.
struct FunctionInfo: Sendable {
    let decl: FunctionDecl
    /// How many match blocks enclose the declaration (0 for service-level functions); the
    /// function sees the wildcards of exactly those blocks.
    let scopeDepth: Int
}
