import FirestoreModel

/// What one disjunct of a query asks of an index (docs/composite-indexes.md, rule 6): its
/// equality fields E, its array field A, and the query's normalized order O′ followed by
/// `__name__` in one direction.
struct DisjunctRequirement {
    /// An index that may serve a disjunct: its fields without `__name__`, and `__name__`'s direction.
    struct Candidate {
        var member: IndexMember
        var fields: [IndexField]
        var nameDirection: StructuredQuery.Direction
    }

    /// E: fields under `==`, `in`, `IS_NULL` or `IS_NAN`, in the order written, once each.
    var equalities: [FieldPath] = []
    /// A: the field under `array-contains` or `array-contains-any` (validation allows one).
    var arrayField: FieldPath?
    /// Whether the disjunct has an inequality on a field (not `__name__`): no index merging then.
    var hasInequality = false
    /// O′: the normalized order without `__name__`.
    var order: [QueryShape.Order]
    var nameDirection: StructuredQuery.Direction

    /// Filters on `__name__` add no index field (rule 4.4).
    init(_ conjunction: [Filter], order: [QueryShape.Order], nameDirection: StructuredQuery.Direction) {
        self.order = order
        self.nameDirection = nameDirection
        for filter in conjunction {
            switch filter {
            case .field(let path, let op, _) where !path.isDocumentName:
                switch op {
                case .equal, .in: addEquality(path)
                case .arrayContains, .arrayContainsAny: arrayField = path
                default: hasInequality = true
                }
            case .unary(let path, let op) where !path.isDocumentName:
                if op == .isNull || op == .isNaN { addEquality(path) } else { hasInequality = true }
            default: break
            }
        }
    }

    private mutating func addEquality(_ path: FieldPath) {
        if !equalities.contains(path) { equalities.append(path) }
    }

    /// The fields whose single-field indexes may serve it: E, A and the order's fields, sorted.
    var touchedFields: [FieldPath] {
        Set(equalities + (arrayField.map { [$0] } ?? []) + order.map(\.field)).sorted()
    }

    /// Whether one index, `fields` then `__name__` in `nameDirection`, serves the disjunct
    /// (rule 6): its fields split into a prefix of equality (or `CONTAINS` array) fields in any
    /// order and a suffix that is exactly O′, where O′ may skip fields held constant by an
    /// equality; together they cover E and A.
    func isServed(by candidate: Candidate) -> Bool {
        let fields = candidate.fields
        guard candidate.nameDirection == nameDirection else { return false }
        var k = 0
        while true {
            let suffix = fields[k...]
            if suffix.allSatisfy({ $0.mode.direction != nil }), matchesOrder(suffix), covers(fields) { return true }
            guard k < fields.count, isPrefixField(fields[k]) else { return false }
            k += 1
        }
    }

    /// Whether a field may sit in an index's equality prefix.
    private func isPrefixField(_ field: IndexField) -> Bool {
        switch field.mode {
        case .contains: field.fieldPath == arrayField
        case .ascending, .descending: equalities.contains(field.fieldPath)
        case .vector, .search: false
        }
    }

    /// Whether `suffix` is O′ exactly, but for O′ entries on equality fields, which may be left out.
    private func matchesOrder(_ suffix: ArraySlice<IndexField>) -> Bool {
        var i = suffix.startIndex
        for entry in order {
            if i < suffix.endIndex, suffix[i].fieldPath == entry.field, suffix[i].mode.direction == entry.direction {
                i += 1
            } else if !equalities.contains(entry.field) {
                return false
            }
        }
        return i == suffix.endIndex
    }

    /// Whether the index's ordered fields include every equality field, and a `CONTAINS` field
    /// the array field (rule 6.4: an ordered field holds the whole array, not its elements).
    private func covers(_ fields: [IndexField]) -> Bool {
        equalities.allSatisfy { e in fields.contains { $0.fieldPath == e && $0.mode.direction != nil } }
            && arrayField.map { a in fields.contains { $0.fieldPath == a && $0.mode == .contains } } ?? true
    }

    /// Index merging (rule 9): with no inequality and at most one order field T left once the
    /// equality fields are taken out, two or more indexes of the form `P ++ T` (P equality or
    /// `CONTAINS` fields, `__name__` in the query's direction) whose prefixes together cover E
    /// and A. Returns the members, or nil.
    func merge(_ candidates: [Candidate]) -> [IndexMember]? {
        guard !hasInequality else { return nil }
        let tail = order.filter { !equalities.contains($0.field) }
        guard tail.count <= 1 else { return nil }
        var members: [IndexMember] = []
        var covered = Set<IndexField>()
        for candidate in candidates where candidate.nameDirection == nameDirection && candidate.fields.count > tail.count {
            let prefix = candidate.fields.dropLast(tail.count)
            let suffix = candidate.fields.suffix(tail.count)
            guard zip(suffix, tail).allSatisfy({ $0.fieldPath == $1.field && $0.mode.direction == $1.direction }),
                  prefix.allSatisfy(isPrefixField) else { continue }
            members.append(candidate.member)
            // (An equality prefix field serves in either direction.)
            covered.formUnion(prefix.map { $0.mode == .contains ? $0 : IndexField($0.fieldPath, .ascending) })
        }
        let needed = equalities.map { IndexField($0, .ascending) } + (arrayField.map { [IndexField($0, .contains)] } ?? [])
        return members.count >= 2 && needed.allSatisfy(covered.contains) ? members : nil
    }

    /// The index production suggests (rule 17.1): the array field as `CONTAINS` (even when it
    /// is also ordered), the equality fields sorted and ascending, O′ (an entry identical to one
    /// already listed is dropped), then `__name__` explicit.
    var suggestedFields: [IndexField] {
        var fields: [IndexField] = []
        if let arrayField { fields.append(IndexField(arrayField, .contains)) }
        for field in equalities.sorted() { fields.append(IndexField(field, .ascending)) }
        for entry in order {
            let field = IndexField(entry.field, .init(entry.direction))
            if !fields.contains(field) { fields.append(field) }
        }
        fields.append(IndexField(.documentName, .init(nameDirection)))
        return fields
    }
}
