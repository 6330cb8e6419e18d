/// One write of a commit: set, merge (update with mask), delete, or transform only.
package struct Write: Sendable, Equatable {
    package enum Operation: Sendable, Equatable {
        /// Replace the document with these fields, or with a mask, merge only the masked paths.
        case update(fields: [FieldName: Value], mask: [FieldPath]?)
        case delete
        /// Apply only the field transforms.
        case transform
        /// Change nothing: only check the precondition (a transaction's read of a document it
        /// does not write, as the web SDK sends it). Needs read access, not write access.
        case verify
    }

    package var key: ResourcePath
    package var operation: Operation
    package var transforms: [FieldTransform]
    package var precondition: Precondition?

    package init(key: ResourcePath, operation: Operation, transforms: [FieldTransform] = [], precondition: Precondition? = nil) {
        self.key = key
        self.operation = operation
        self.transforms = transforms
        self.precondition = precondition
    }
}

/// A condition on the current document that a write requires.
package enum Precondition: Sendable, Equatable {
    case exists(Bool)
    case updateTime(Timestamp)
}

/// A server-side transformation of one field.
package struct FieldTransform: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case serverTimestamp
        case increment(Value)
        case maximum(Value)
        case minimum(Value)
        case appendMissingElements([Value])
        case removeAllFromArray([Value])
    }

    package var fieldPath: FieldPath
    package var kind: Kind

    package init(fieldPath: FieldPath, kind: Kind) {
        self.fieldPath = fieldPath
        self.kind = kind
    }
}

/// The outcome of one write: its update time (nil for a delete's result when Firestore omits
/// it) and the values its transforms produced.
package struct WriteResult: Sendable, Equatable {
    package var updateTime: Timestamp?
    package var transformResults: [Value]

    package init(updateTime: Timestamp?, transformResults: [Value]) {
        self.updateTime = updateTime
        self.transformResults = transformResults
    }
}
