import FirestoreModel

extension IndexDefinitions {
    /// Production's verdict for a query of this shape (docs/composite-indexes.md): every
    /// disjunct served by an automatic single-field index, a composite index or index merging,
    /// or the index to create.
    ///
    /// The order of preference where several would serve is Hearth's (rule 21.1): single-field,
    /// then the first composite in file order, then a merge.
    package func verdict(for shape: QueryShape) -> IndexVerdict {
        if let vector = shape.vector { return vectorVerdict(for: shape, vector: vector) }
        let nameAt = shape.order.lastIndex { $0.field.isDocumentName }
        let nameDirection = nameAt.map { shape.order[$0].direction } ?? shape.order.last?.direction ?? .ascending
        let order = shape.order.filter { !$0.field.isDocumentName }
        let composites = composites(collectionGroup: shape.collectionGroup, scope: shape.scope).filter { !$0.index.isVectorIndex }
            .map { position, index in
                let keyed = index.keyed
                return DisjunctRequirement.Candidate(member: .composite(position: position), fields: keyed.fields, nameDirection: keyed.nameDirection)
            }
        var services: [IndexService?] = []
        var missing: MissingIndex?
        for conjunction in shape.disjuncts {
            let requirement = DisjunctRequirement(conjunction, order: order, nameDirection: nameDirection)
            let service = self.service(for: requirement, shape: shape, composites: composites)
            services.append(service)
            if service == nil, missing == nil {
                missing = missingIndex(for: requirement, shape: shape)
            }
        }
        return IndexVerdict(disjuncts: services, missing: missing)
    }

    private func service(for requirement: DisjunctRequirement, shape: QueryShape, composites: [DisjunctRequirement.Candidate]) -> IndexService? {
        let touched = requirement.touchedFields
        // The built-in key index: no field filter, no field order (rule 2.3).
        if touched.isEmpty { return .singleField }
        let singles = touched.flatMap { field in
            singleFieldIndexes(collectionGroup: shape.collectionGroup, field: field)
                .filter { $0.queryScope == shape.scope && $0.apiScope == "ANY_API" }
                .map { index in
                    DisjunctRequirement.Candidate(member: .singleField(IndexField(field, index.mode)), fields: [IndexField(field, index.mode)],
                                                  nameDirection: index.mode == .descending ? .descending : .ascending)
                }
        }
        if singles.contains(where: requirement.isServed) {
            return .singleField
        }
        if let served = composites.first(where: requirement.isServed),
           case .composite(let position) = served.member {
            return .composite(position: position)
        }
        return requirement.merge(singles + composites).map(IndexService.merge)
    }

    /// The suggested index for an unserved disjunct (rule 17), single-field when it has one
    /// field with `__name__` in that field's own direction (rule 17.5).
    private func missingIndex(for requirement: DisjunctRequirement, shape: QueryShape) -> MissingIndex {
        let fields = requirement.suggestedFields
        let index = CompositeIndex(collectionGroup: shape.collectionGroup, queryScope: shape.scope, fields: fields)
        if fields.count == 2, let field = fields.first {
            let impliedName: StructuredQuery.Direction = field.mode == .descending ? .descending : .ascending
            if fields[1].mode.direction == impliedName {
                let override = suggestedOverride(adding: field.mode, at: shape.scope, field: field.fieldPath, collectionGroup: shape.collectionGroup)
                return .singleField(field, collectionGroup: shape.collectionGroup, scope: shape.scope, override: override)
            }
        }
        return .composite(index, hasMultipleInequalities: shape.inequalityFields.count >= 2)
    }

    /// The override that gives `field` the single-field index it lacks, keeping the ones it
    /// has (the automatic three, or those of the override that applies to it now).
    private func suggestedOverride(adding mode: IndexField.Mode, at scope: QueryScope, field: FieldPath, collectionGroup: String) -> FieldOverride {
        var indexes = singleFieldIndexes(collectionGroup: collectionGroup, field: field)
        let added = SingleFieldIndex(mode, scope)
        if !indexes.contains(added) { indexes.append(added) }
        return FieldOverride(collectionGroup: collectionGroup, fieldPath: field, indexes: indexes)
    }

    /// `findNearest` (rule 16): served only by a vector index at the query's scope on the
    /// vector field, with the query vector's dimension, whose other fields are exactly the
    /// equality pre-filter's fields.
    private func vectorVerdict(for shape: QueryShape, vector: (field: FieldPath, dimension: Int)) -> IndexVerdict {
        var equalities = Set<FieldPath>()
        for conjunction in shape.disjuncts {
            let requirement = DisjunctRequirement(conjunction, order: [], nameDirection: .ascending)
            equalities.formUnion(requirement.equalities)
        }
        let prefilter = equalities.sorted()
        for (position, index) in composites(collectionGroup: shape.collectionGroup, scope: shape.scope) {
            let fields = index.fields.filter { !$0.fieldPath.isDocumentName }
            guard let last = fields.last, last.fieldPath == vector.field, last.mode == .vector(dimension: vector.dimension) else { continue }
            let others = fields.dropLast()
            if others.allSatisfy({ $0.mode.direction != nil }), others.map(\.fieldPath).sorted() == prefilter {
                return IndexVerdict(disjuncts: [.composite(position: position)], missing: nil)
            }
        }
        let fields = prefilter.map { IndexField($0, .ascending) } + [IndexField(vector.field, .vector(dimension: vector.dimension))]
        let index = CompositeIndex(collectionGroup: shape.collectionGroup, queryScope: shape.scope, fields: fields)
        return IndexVerdict(disjuncts: [nil], missing: .vector(index))
    }
}
