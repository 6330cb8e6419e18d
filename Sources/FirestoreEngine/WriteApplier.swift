package import FirestoreModel
import Foundation

/// Applies one write to a document's current state: preconditions, set or merge, delete,
/// and field transforms; the precondition can be checked on its own. Pure: the caller supplies the current document and the commit time.
package enum WriteApplier {
    /// The document after the write (nil when deleted) and the transform results.
    package struct Outcome: Sendable, Equatable {
        package var document: Document?
        package var transformResults: [Value]
    }

    package static func apply(
        _ write: Write, to current: Document?, database: DatabaseID, commitTime: Timestamp
    ) throws(FirestoreError) -> Outcome {
        try checkPrecondition(write, current: current, database: database)
        return try applyIgnoringPrecondition(write, to: current, commitTime: commitTime)
    }

    /// Throws NOT_FOUND, ALREADY_EXISTS, FAILED_PRECONDITION or INVALID_ARGUMENT when the
    /// write's precondition does not hold for the current document.
    ///
    /// `missingVersion` is the version of a missing document: 0 when it never existed (so the
    /// epoch as an update-time precondition holds, as on the emulator), else when it was deleted.
    package static func checkPrecondition(_ write: Write, current: Document?, missingVersion: Int64 = 0,
                                          database: DatabaseID) throws(FirestoreError) {
        var name: String { database.name(of: write.key) } // for messages only
        switch write.precondition {
        case .exists(true)? where current == nil:
            throw .notFound("No document to update: \(name)")
        case .exists(false)? where current != nil:
            throw .alreadyExists("Document already exists: \(name)")
        case .updateTime(let t)?:
            guard let current else {
                if t.microseconds == missingVersion {
                    // The epoch on a document that never existed: it may be created. Its deletion
                    // time on a deleted one: the version holds, but there is nothing to update.
                    if missingVersion != 0, write.operation != .delete { throw .notFound("No document to update: \(name)") }
                    return
                }
                throw .failedPrecondition("the stored version (\(missingVersion)) does not match the required base version (\(t.microseconds)): \(name) does not exist")
            }
            let stored = current.updateTime.microseconds
            if t.microseconds > stored {
                throw .invalidArgument("Invalid base version, it is greater than the stored version: the precondition's update time \(t.rfc3339) is later than the stored document's (\(current.updateTime.rfc3339)): \(name)")
            }
            if t.microseconds != stored {
                throw .failedPrecondition("the stored version (\(stored)) does not match the required base version (\(t.microseconds)): \(name)")
            }
        default:
            break
        }
    }

    /// The write's effect as if its precondition held: what the security rules judge before
    /// the precondition is checked.
    package static func applyIgnoringPrecondition(
        _ write: Write, to current: Document?, commitTime: Timestamp
    ) throws(FirestoreError) -> Outcome {
        var fields: [FieldName: Value]
        switch write.operation {
        case .delete:
            return Outcome(document: nil, transformResults: [])
        case .update(let newFields, nil):
            fields = newFields
        case .update(let newFields, let mask?):
            fields = current?.fields ?? [:]
            for path in mask {
                fields.set(newFields.value(at: path), at: path)
            }
        case .transform:
            fields = current?.fields ?? [:]
        case .verify:
            return Outcome(document: current, transformResults: [])
        }
        var results: [Value] = []
        for transform in write.transforms {
            let old = fields.value(at: transform.fieldPath)
            let (stored, result) = try Self.transform(transform.kind, old: old, commitTime: commitTime)
            fields.set(stored, at: transform.fieldPath)
            results.append(result)
        }
        let document = Document(
            key: write.key, fields: fields,
            createTime: current?.createTime ?? commitTime, updateTime: commitTime
        )
        return Outcome(document: document, transformResults: results)
    }

    /// The stored value and the transform result of one field transform.
    static func transform(_ kind: FieldTransform.Kind, old: Value?, commitTime: Timestamp) throws(FirestoreError) -> (Value, Value) {
        switch kind {
        case .serverTimestamp:
            return (.timestamp(commitTime), .timestamp(commitTime))
        case .increment(let operand):
            let v = increment(old, by: operand)
            return (v, v)
        case .maximum(let operand):
            let v = extremum(old, operand, wantMax: true)
            return (v, v)
        case .minimum(let operand):
            let v = extremum(old, operand, wantMax: false)
            return (v, v)
        case .appendMissingElements(let elements):
            var array = old?.arrayValue ?? []
            for e in elements where !array.contains(e) { array.append(e) }
            return (.array(array), .null)
        case .removeAllFromArray(let elements):
            let array = (old?.arrayValue ?? []).filter { !elements.contains($0) }
            return (.array(array), .null)
        }
    }

    /// Firestore's increment: integers saturate on overflow; a double on either side gives a double.
    static func increment(_ old: Value?, by operand: Value) -> Value {
        switch (old, operand) {
        case (.integer(let a)?, .integer(let b)):
            let (r, overflow) = a.addingReportingOverflow(b)
            return overflow ? .integer(b > 0 ? .max : .min) : .integer(r)
        case (.integer(let a)?, .double(let b)):
            return .double(Double(a) + b)
        case (.double(let a)?, .integer(let b)):
            return .double(a + Double(b))
        case (.double(let a)?, .double(let b)):
            return .double(a + b)
        default:
            return operand
        }
    }

    /// Firestore's maximum/minimum: NaN wins; equivalent numbers keep the stored value;
    /// a non-number or missing field takes the operand.
    static func extremum(_ old: Value?, _ operand: Value, wantMax: Bool) -> Value {
        guard let old, old.isNumber else { return operand }
        if old.isNaN { return old }
        if operand.isNaN { return operand }
        switch old.compare(to: operand) {
        case .orderedSame: return old
        case .orderedAscending: return wantMax ? operand : old
        case .orderedDescending: return wantMax ? old : operand
        }
    }
}
