import FirestoreModel
import FirestoreWire
import Foundation
import SwiftProtobuf

/// Builders that keep test tables of wire messages short.
enum Wire {
    static let db = DatabaseID(project: "p")
    static let root = db.documentsRoot

    static func name(_ path: String) -> String { root + "/" + path }

    static func value(_ v: Value) -> Google_Firestore_V1_Value { WireCodec.encode(v) }

    static func ref(_ path: String) -> Google_Firestore_V1_StructuredQuery.FieldReference {
        var r = Google_Firestore_V1_StructuredQuery.FieldReference()
        r.fieldPath = path
        return r
    }

    static func fieldFilter(
        _ path: String, _ op: Google_Firestore_V1_StructuredQuery.FieldFilter.Operator, _ v: Value?
    ) -> Google_Firestore_V1_StructuredQuery.Filter {
        var f = Google_Firestore_V1_StructuredQuery.FieldFilter()
        f.field = ref(path)
        f.op = op
        if let v { f.value = value(v) }
        var filter = Google_Firestore_V1_StructuredQuery.Filter()
        filter.fieldFilter = f
        return filter
    }

    static func unaryFilter(
        _ path: String, _ op: Google_Firestore_V1_StructuredQuery.UnaryFilter.Operator
    ) -> Google_Firestore_V1_StructuredQuery.Filter {
        var u = Google_Firestore_V1_StructuredQuery.UnaryFilter()
        u.field = ref(path)
        u.op = op
        var filter = Google_Firestore_V1_StructuredQuery.Filter()
        filter.unaryFilter = u
        return filter
    }

    static func composite(
        _ op: Google_Firestore_V1_StructuredQuery.CompositeFilter.Operator, _ filters: [Google_Firestore_V1_StructuredQuery.Filter]
    ) -> Google_Firestore_V1_StructuredQuery.Filter {
        var c = Google_Firestore_V1_StructuredQuery.CompositeFilter()
        c.op = op
        c.filters = filters
        var filter = Google_Firestore_V1_StructuredQuery.Filter()
        filter.compositeFilter = c
        return filter
    }

    static func query(from collection: String, _ configure: (inout Google_Firestore_V1_StructuredQuery) -> Void = { _ in })
        -> Google_Firestore_V1_StructuredQuery
    {
        var q = Google_Firestore_V1_StructuredQuery()
        var from = Google_Firestore_V1_StructuredQuery.CollectionSelector()
        from.collectionID = collection
        q.from = [from]
        configure(&q)
        return q
    }

    static func transform(_ path: String, _ configure: (inout Google_Firestore_V1_DocumentTransform.FieldTransform) -> Void)
        -> Google_Firestore_V1_DocumentTransform.FieldTransform
    {
        var t = Google_Firestore_V1_DocumentTransform.FieldTransform()
        t.fieldPath = path
        configure(&t)
        return t
    }

    static func array(_ values: [Value]) -> Google_Firestore_V1_ArrayValue {
        var a = Google_Firestore_V1_ArrayValue()
        a.values = values.map(value)
        return a
    }
}

/// The Firestore error a throwing conversion raised (nil if it returned), for comparisons.
func error(_ body: () throws -> some Any) -> FirestoreError? {
    do {
        _ = try body()
        return nil
    } catch let error as FirestoreError {
        return error
    } catch {
        return FirestoreError(.unknown, "not a FirestoreError: \(error)")
    }
}
