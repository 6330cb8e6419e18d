package import FirestoreModel

extension Filter {
    /// The filter in disjunctive normal form: a list of conjunctions of simple filters (field
    /// and unary filters), or nil when there would be more than `limit` conjunctions. The one
    /// expansion of filters Hearth makes: query validation counts its disjuncts and checks each,
    /// and security rules judge a list query per disjunct.
    ///
    /// With `expandingIn`, `in` becomes one `==` per value and `array-contains-any` one
    /// `array-contains` per value, as Firestore normalizes a query before counting its
    /// disjunctions; with `expandingArrayContainsAny`, only the latter (as the emulator judges a
    /// list query's rules: once per value of an `array-contains-any`, r15r-ac-* in
    /// fixtures/differential/rules/round-15.json). Conjunctions that hold the same filters (the
    /// same conditions on exactly equal values, in any order, as many times) are kept once.
    package func disjuncts(expandingIn: Bool = false, expandingArrayContainsAny: Bool = false,
                           limit: Int = 10_000) -> [[Filter]]? {
        disjunctTerms(expandingIn: expandingIn, expandingAny: expandingIn || expandingArrayContainsAny, limit: limit)?
            .map { $0.map(\.filter) }
    }

    /// The number of distinct disjuncts after expanding `in` and `array-contains-any`, as the
    /// emulator counts them against its limit of 30: a disjunct is the set of its conditions
    /// (`a == 1 and a == 1` is `a == 1`). More than `limit` is `limit + 1`.
    package func distinctDisjunctionCount(limit: Int = 10_000) -> Int {
        guard let terms = disjunctTerms(expandingIn: true, expandingAny: true, limit: limit) else { return limit + 1 }
        return Set(terms.map { Set($0.map(\.key)) }).count
    }

    /// One simple filter with the text that identifies its condition.
    private struct Term {
        var filter: Filter
        var key: String

        init(_ filter: Filter) {
            self.filter = filter
            key = filter.conditionKey
        }
    }

    private func disjunctTerms(expandingIn: Bool, expandingAny: Bool, limit: Int) -> [[Term]]? {
        switch self {
        case .field(let path, let op, let value):
            if (expandingIn && op == .in) || (expandingAny && op == .arrayContainsAny), case .array(let values) = value, !values.isEmpty {
                let atomOp: Operator = op == .in ? .equal : .arrayContains
                var expanded = DistinctConjunctions(limit: Int.max)
                for v in values { _ = expanded.insert([Term(.field(path, atomOp, v))]) }
                return expanded.conjunctions
            }
            return [[Term(self)]]
        case .unary:
            return [[Term(self)]]
        case .composite(.or, let children):
            var all = DistinctConjunctions(limit: limit)
            for child in children {
                guard let terms = child.disjunctTerms(expandingIn: expandingIn, expandingAny: expandingAny, limit: limit) else { return nil }
                for t in terms { guard all.insert(t) else { return nil } }
            }
            return all.conjunctions
        case .composite(.and, let children):
            var acc: [[Term]] = [[]]
            for child in children {
                guard let terms = child.disjunctTerms(expandingIn: expandingIn, expandingAny: expandingAny, limit: limit) else { return nil }
                var next = DistinctConjunctions(limit: limit)
                for a in acc {
                    for t in terms { guard next.insert(a + t) else { return nil } }
                }
                acc = next.conjunctions
            }
            return acc
        }
    }

    /// Conjunctions kept once each (by the multiset of their conditions), in first-seen order.
    private struct DistinctConjunctions {
        let limit: Int
        private(set) var conjunctions: [[Term]] = []
        private var seen = Set<[String]>()

        init(limit: Int) { self.limit = limit }

        /// Adds `conjunction` unless it is there already; false once there are more than `limit`.
        mutating func insert(_ conjunction: [Term]) -> Bool {
            if seen.insert(conjunction.map(\.key).sorted()).inserted { conjunctions.append(conjunction) }
            return conjunctions.count <= limit
        }
    }

    /// A text equal for filters with the same condition on exactly equal values.
    package var conditionKey: String {
        switch self {
        case .field(let path, let op, let value): path.canonical + " " + op.rawValue + " " + value.exactKey
        case .unary(let path, let op): path.canonical + " " + op.rawValue
        case .composite(let op, let children): op.rawValue + "(" + children.map(\.conditionKey).joined(separator: ",") + ")"
        }
    }
}

extension Value {
    /// A text that is equal for exactly equal values (strings spelled by their bytes, since
    /// Swift's `==` would equate canonically equivalent ones): types kept apart (`1`, `1.0`, `-0.0`),
    /// NaN equal to NaN, map keys sorted.
    package var exactKey: String {
        switch self {
        case .null: return "n"
        case .boolean(let b): return b ? "t" : "f"
        case .integer(let i): return "i\(i)"
        case .double(let d): return d.isNaN ? "dNaN" : "d\(d.bitPattern)"
        case .timestamp(let t): return "T\(t.seconds).\(t.nanos)"
        case .string(let s): return "s" + String(s.utf8.count) + ":" + s.utf8.map { String($0) }.joined(separator: ",")
        case .bytes(let b): return "b" + b.map { String($0) }.joined(separator: ",")
        case .reference(let r): return "r" + String(r.utf8.count) + ":" + r
        case .geoPoint(let lat, let lng): return "g\(lat.bitPattern),\(lng.bitPattern)"
        case .array(let a): return "[" + a.map(\.exactKey).joined(separator: ";") + "]"
        case .map(let m):
            return "{" + m.keys.sorted().map { "s" + String($0.string.utf8.count) + ":" + $0.string + "=" + m[$0]!.exactKey }.joined(separator: ";") + "}"
        }
    }
}
