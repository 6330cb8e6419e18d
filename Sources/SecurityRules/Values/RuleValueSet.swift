/// The members of a rules set: unique values (by the language's equality), kept in the order
/// they were first added so that iteration is deterministic.
package struct RuleValueSet: Sendable, Hashable {
    /// The members, in insertion order.
    package private(set) var elements: [RuleValue] = []
    private var members: Set<RuleValue> = []

    /// Creates a set from values, keeping the first of any equal values.
    package init<S: Sequence>(_ values: S) where S.Element == RuleValue {
        for value in values { insert(value) }
    }

    /// The number of members.
    package var count: Int { elements.count }

    /// Whether the value is a member.
    package func contains(_ value: RuleValue) -> Bool {
        members.contains(value)
    }

    /// Adds a value unless an equal one is already a member.
    package mutating func insert(_ value: RuleValue) {
        if members.insert(value).inserted { elements.append(value) }
    }

    package static func == (lhs: RuleValueSet, rhs: RuleValueSet) -> Bool {
        lhs.members == rhs.members
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(members)
    }
}
