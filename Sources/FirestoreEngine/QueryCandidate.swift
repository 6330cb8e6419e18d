import FirestoreModel
import FirestoreQuery
import SecurityRules

/// What a list query's rules are judged on, per disjunct of its filter: rules are not filters,
/// so a list rule must hold for every document the query could return, decided from the
/// query's constraints (docs/security-rules.md).
enum QueryCandidate {
    /// Document data as the filters constrain it.
    case constrained([String: RuleValue])
    /// A document the filter names with `__name__`.
    case named(ResourcePath)

    /// For each disjunct of the filter, the candidates to judge (bounded: Firestore caps
    /// disjunctions at 30).
    static func candidates(for filter: Filter?, database: DatabaseID) -> [QueryCandidate] {
        guard let filter else { return [.constrained([:])] }
        // An `array-contains-any` is judged once per value, as the emulator judges it.
        return (filter.disjuncts(expandingArrayContainsAny: true) ?? []).flatMap { conjunctionCandidates($0, database: database) }
    }

    static func conjunctionCandidates(_ conjunction: [Filter], database: DatabaseID) -> [QueryCandidate] {
        var named: [ResourcePath]?
        var alternatives: [FieldPath: [RuleValue]] = [:] // equality (one value) or `in` (several)
        var bounds: [FieldPath: RuleConstraint] = [:]
        var fields: [FieldPath] = [] // in first-seen order, for deterministic candidates
        // The first equality or `in` on a field gives its values; the emulator judges the rules on
        // each of them even where the query can match none (`n == 1 and n != 1` needs the
        // permission, though it matches nothing).
        func pin(_ path: FieldPath, _ values: [RuleValue]) {
            guard alternatives[path] == nil else { return }
            alternatives[path] = values
            if bounds[path] == nil { fields.append(path) }
        }
        func constrain(_ path: FieldPath, _ text: String, _ change: (inout RuleConstraint) -> Void) {
            if bounds[path] == nil, alternatives[path] == nil { fields.append(path) }
            var c = bounds[path] ?? RuleConstraint()
            change(&c)
            c.summary.append("\(path.canonical) \(text)")
            bounds[path] = c
        }
        for f in conjunction {
            switch f {
            case .field(let path, let op, let value) where path.isDocumentName:
                let keys: [ResourcePath]
                switch (op, value) {
                case (.equal, .reference(let name)): keys = documentKey(name, database: database).map { [$0] } ?? []
                case (.in, .array(let refs)):
                    keys = refs.compactMap { if case .reference(let name) = $0 { documentKey(name, database: database) } else { nil } }
                default: continue
                }
                named = named.map { current in current.filter(keys.contains) } ?? keys
            case .field(let path, let op, let value):
                let v = RuleValues.value(value)
                switch op {
                // A field filter `== null` or `== NaN` (not the unary IS_NULL / IS_NAN) fixes no
                // value for the emulator: it judges it as it judges an `in` filter's null or NaN
                // member (`r10-q-isnull-rule`, `r10-q-isnan-rule` in fixtures/differential/rules).
                case .equal: pin(path, [inMember(value)])
                case .in:
                    if case .array(let values) = value { pin(path, values.map(inMember)) }
                case .greaterThan: constrain(path, "> \(v)") { $0.bound(below: v, inclusive: false) }
                case .greaterThanOrEqual: constrain(path, ">= \(v)") { $0.bound(below: v, inclusive: true) }
                case .lessThan: constrain(path, "< \(v)") { $0.bound(above: v, inclusive: false) }
                case .lessThanOrEqual: constrain(path, "<= \(v)") { $0.bound(above: v, inclusive: true) }
                case .notEqual: constrain(path, "!= \(v)") { $0.excluded.append(v) }
                case .notIn:
                    if case .array(let values) = value {
                        constrain(path, "not-in \(v)") { $0.excluded += values.map(RuleValues.value) }
                    }
                case .arrayContains: constrain(path, "array-contains \(v)") { $0.elements.append(v) }
                case .arrayContainsAny:
                    if case .array(let values) = value {
                        constrain(path, "array-contains-any \(v)") { c in
                            if values.count == 1 {
                                c.elements.append(RuleValues.value(values[0]))
                            } else {
                                c.someOf.append(values.map(RuleValues.value))
                            }
                        }
                    }
                }
            case .unary(let path, let op) where !path.isDocumentName:
                switch op {
                case .isNull: pin(path, [.null])
                case .isNaN: pin(path, [.float(.nan)])
                case .isNotNull: constrain(path, "!= null") { $0.excluded.append(.null) }
                case .isNotNaN: constrain(path, "!= NaN") { $0.excluded.append(.float(.nan)) }
                }
            default:
                break
            }
        }
        if let named { return named.map { .named($0) } }
        var candidates: [[String: RuleValue]] = [[:]]
        for path in fields {
            if let values = alternatives[path] {
                // A value the field's other filters rule out is judged by those filters alone
                // (`n == 1 and n > 5` proves `n > 5`, not `n == 1`), as on the emulator.
                let bound = bounds[path]
                candidates = candidates.flatMap { c in
                    values.map { v in
                        var c = c
                        let judged: RuleValue
                        if case .constrained = v, var unknown = bound {
                            // A null or NaN `in` member, under the field's other filters too.
                            unknown.excluded.append(.null)
                            unknown.summary += Self.someNonNull.summary
                            judged = .constrained(unknown)
                        } else if let bound, !bound.admits(v) {
                            judged = .constrained(bound)
                        } else {
                            judged = v
                        }
                        c.setNested(judged, at: path.segments[...])
                        return c
                    }
                }
            } else if let c = bounds[path] {
                candidates = candidates.map { var d = $0; d.setNested(.constrained(c), at: path.segments[...]); return d }
            }
        }
        return candidates.map { .constrained($0) }
    }

    /// A member of an `in` filter as the rules judge it: itself, except that the emulator
    /// judges a null or NaN member as some value it knows only not to be null: under
    /// `where n in [null, 7]`, `resource.data.n != null` holds, while `n != 3`, `n == null`,
    /// `n is int` and `n in [null, 7]` do not (fixtures/differential/sdk, `m8-lp-in-with-null`,
    /// `m8-lp-in-null-members`, `m8-lp-in-null-with-bound`).
    static func inMember(_ member: Value) -> RuleValue {
        member == .null || member.isNaN ? .constrained(someNonNull) : RuleValues.value(member)
    }

    static let someNonNull: RuleConstraint = {
        var c = RuleConstraint()
        c.excluded = [.null]
        c.summary = ["in a list holding null or NaN"]
        return c
    }()

    static func documentKey(_ name: String, database: DatabaseID) -> ResourcePath? {
        guard let (db, path) = try? DatabaseID.parse(resourceName: name), db == database, path.isDocument else { return nil }
        return path
    }
}
