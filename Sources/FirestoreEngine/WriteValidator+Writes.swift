package import FirestoreModel

extension WriteValidator {
    /// Checks a write before it reaches storage: key, fields, mask and transforms.
    package static func validate(_ write: Write, in db: DatabaseID) throws(FirestoreError) {
        var name: String { db.name(of: write.key) } // for messages only
        try PathValidation.validate(path: write.key, name: name)
        guard write.key.isDocument else {
            throw .invalidArgument("Document name \"\(name)\" must have an even number of path segments.")
        }
        if case .delete = write.operation {} else {
            try PathValidation.validateLengths(path: write.key, name: name)
        }
        if case .update(let fields, let mask) = write.operation {
            try validate(fields: fields, key: write.key, database: db)
            if let mask {
                for path in mask {
                    if path.isDocumentName { throw .invalidArgument("Update mask cannot contain '__name__'.") }
                    try path.validateAsMask()
                }
            }
        }
        for path in write.transforms.map(\.fieldPath) {
            if path.isDocumentName { throw .invalidArgument("Cannot transform '__name__'.") }
            try path.validateAsReference(limited: false, use: .transform)
            for other in write.transforms.map(\.fieldPath) where other != path && other.isPrefixed(by: path) {
                throw .invalidArgument("Cannot transform property \(path.canonical) and its nested property at the same time.")
            }
        }
        for t in write.transforms {
            switch t.kind {
            case .increment(let v), .maximum(let v), .minimum(let v):
                guard v.isNumber else { throw .invalidArgument("Input must be int64 or double.") }
            case .appendMissingElements(let vs), .removeAllFromArray(let vs):
                for v in vs {
                    if case .array = v {
                        throw .invalidArgument("Cannot convert an array value in an array value (field transform on \"\(t.fieldPath.canonical)\").")
                    }
                    try validate(fields: ["v": v], key: write.key, database: db, limitingValues: false)
                }
            case .serverTimestamp:
                break
            }
        }
    }

    /// Rejects write sequences on one document that Firestore refuses within a request.
    package static func validateSequence(_ writes: [Write], in db: DatabaseID) throws(FirestoreError) {
        /// How the emulator classes a write when it collapses several writes to one document.
        enum Kind: String { case insert, update, upsert, delete }
        func kind(_ w: Write) -> Kind {
            if w.operation == .delete { return .delete }
            switch w.precondition {
            case .exists(false)?: return .insert
            case .updateTime(let t)? where t.microseconds == 0: return .insert // the epoch: "did not exist"
            case .exists(true)?, .updateTime?: return .update
            default: return .upsert
            }
        }
        func version(_ w: Write) -> Int64? {
            if case .updateTime(let t)? = w.precondition { return t.microseconds }
            return nil
        }
        func differentVersions(_ previous: Write, _ v: Int64) -> FirestoreError {
            let old = version(previous).map { "VersionPrecondition{exactBaseVersion=\($0), maxBaseVersion=null}" } ?? "null"
            return .invalidArgument("Cannot collapse mutations with different version preconditions (\(old) and VersionPrecondition{exactBaseVersion=\(v), maxBaseVersion=null})")
        }
        var last: [ResourcePath: Int] = [:] // a document's latest write so far, by position
        last.reserveCapacity(writes.count)
        for (i, w) in writes.enumerated() {
            if case .updateTime(let t)? = w.precondition, t.seconds < 0 {
                throw .invalidArgument("Only timestamps past epoch are supported.")
            }
            guard let p = last.updateValue(i, forKey: w.key) else { continue }
            let previous = writes[p]
            switch (previous.operation == .verify, w.operation == .verify) {
            case (true, true): throw .invalidArgument("the same document cannot be verified more than once in a single request")
            case (true, false): throw .invalidArgument("the same document cannot be verified and then written in a single request")
            case (false, true): throw .invalidArgument("the same document cannot be written and then verified in a single request")
            case (false, false): break
            }
            let (before, now) = (kind(previous), kind(w))
            if now == .insert {
                if before == .delete {
                    // delete@epoch then update@epoch collapse (one version); the precondition is
                    // then checked as usual.
                    if let v = version(w), version(previous) != v { throw differentVersions(previous, v) }
                    continue
                }
                throw .invalidArgument("Cannot \(before.rawValue) then insert an entity in the same request.")
            }
            // A delete requiring the document to be missing cannot follow a write that leaves it
            // in place.
            if now == .delete, case .exists(false)? = w.precondition, before != .delete {
                throw .invalidArgument("Cannot \(before.rawValue) then delete an entity in the same request.")
            }
            if case .exists(true)? = w.precondition, previous.operation == .delete {
                throw .invalidArgument("Cannot delete then update an entity in the same request.")
            }
            // A version precondition must be the same on every write to the document; each
            // is then checked against the document as it was before the commit.
            if let v = version(w), version(previous) != v { throw differentVersions(previous, v) }
            if now == .update, before == .delete {
                throw .invalidArgument("Cannot delete then update an entity in the same request.")
            }
        }
    }

    /// Firestore stores timestamps with microsecond precision: finer digits are dropped.
    package static func normalized(_ write: Write) -> Write {
        var w = write
        if case .update(let fields, let mask) = w.operation, fields.values.contains(where: \.hasNanoseconds) {
            w.operation = .update(fields: fields.mapValues(\.truncatingTimestamps), mask: mask)
        }
        w.transforms = w.transforms.map { t in
            var t = t
            switch t.kind {
            case .maximum(let v): t.kind = .maximum(v.truncatingTimestamps)
            case .minimum(let v): t.kind = .minimum(v.truncatingTimestamps)
            case .appendMissingElements(let vs): t.kind = .appendMissingElements(vs.map(\.truncatingTimestamps))
            case .removeAllFromArray(let vs): t.kind = .removeAllFromArray(vs.map(\.truncatingTimestamps))
            default: break
            }
            return t
        }
        return w
    }
}
