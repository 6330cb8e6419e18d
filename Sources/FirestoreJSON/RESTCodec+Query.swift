package import FirestoreModel
package import HearthJSON

extension RESTCodec {
    package static func decodeFieldReference(_ json: JSON?, at: String) throws(FirestoreError) -> FieldPath {
        guard let json else { throw .invalidArgument("Missing field reference at '\(at)'.") }
        try checkKeys(json, ["fieldPath"], at: at)
        guard case .string(let s)? = field(json, "fieldPath") else {
            throw .invalidArgument("Missing field path at '\(at).field_path'.")
        }
        return try FieldPath(parsing: s)
    }

    package static func decodeStructuredQuery(_ json: JSON, at: String) throws(FirestoreError) -> StructuredQuery {
        try checkKeys(json, ["select", "from", "where", "orderBy", "startAt", "endAt", "offset", "limit", "findNearest"], at: at)
        var select: [FieldPath]?
        if let s = json["select"] {
            try checkKeys(s, ["fields"], at: "\(at).select")
            var fields: [FieldPath] = []
            if case .array(let items)? = s["fields"] {
                for (i, item) in items.enumerated() { fields.append(try decodeFieldReference(item, at: "\(at).select.fields[\(i)]")) }
            }
            select = fields
        }
        var from: [StructuredQuery.CollectionSelector] = []
        if let f = json["from"] {
            guard case .array(let items) = f else { throw bad("\(at).from", "expected a list of collection selectors; got \(f.serialized).") }
            for (i, item) in items.enumerated() {
                try checkKeys(item, ["collectionId", "allDescendants"], at: "\(at).from[\(i)]")
                var id = ""
                if let c = field(item, "collectionId") {
                    guard case .string(let s) = c else { throw bad("\(at).from[\(i)].collection_id", "(TYPE_STRING), \(c.serialized)") }
                    id = s
                }
                var all = false
                if let a = field(item, "allDescendants") {
                    guard let b = boolValue(a) else { throw bad("\(at).from[\(i)].all_descendants", "(TYPE_BOOL), \(a.serialized)") }
                    all = b
                }
                from.append(.init(collectionID: id, allDescendants: all))
            }
        }
        let filter = try json["where"].map { j throws(FirestoreError) in try decodeFilter(j, at: "\(at).where") }
        var orderBy: [StructuredQuery.Order] = []
        if let o = field(json, "orderBy") {
            guard case .array(let items) = o else { throw bad("\(at).order_by", "expected a list.") }
            for (i, item) in items.enumerated() {
                try checkKeys(item, ["field", "direction"], at: "\(at).order_by[\(i)]")
                let path = try decodeFieldReference(item["field"], at: "\(at).order_by[\(i)].field")
                var direction = StructuredQuery.Direction.ascending
                switch enumName(item["direction"], EnumNumbers.direction) {
                case nil, "ASCENDING", "DIRECTION_UNSPECIFIED": direction = .ascending
                case "DESCENDING": direction = .descending
                default: throw bad("\(at).order_by[\(i)].direction", "(type.googleapis.com/google.firestore.v1.StructuredQuery.Direction), \(item["direction"]?.serialized ?? "")")
                }
                orderBy.append(.init(path, direction))
            }
        }
        let startAt = try field(json, "startAt").map { j throws(FirestoreError) in try decodeCursor(j, at: "\(at).start_at") }
        let endAt = try field(json, "endAt").map { j throws(FirestoreError) in try decodeCursor(j, at: "\(at).end_at") }
        let offset = try json["offset"].map { j throws(FirestoreError) in Int(try decodeInt32(j, at: "\(at).offset")) } ?? 0
        var limit: Int?
        if let l = json["limit"] {
            limit = Int(try decodeInt32(l, at: "\(at).limit"))
        }
        var query = StructuredQuery(select: select, from: from, filter: filter, orderBy: orderBy,
                                    startAt: startAt, endAt: endAt, offset: offset, limit: limit)
        if let f = field(json, "findNearest") { query.findNearest = try decodeFindNearest(f, at: "\(at).find_nearest") }
        return query
    }

    static func decodeFindNearest(_ json: JSON, at: String) throws(FirestoreError) -> StructuredQuery.FindNearest {
        try checkKeys(json, ["vectorField", "queryVector", "distanceMeasure", "limit", "distanceResultField", "distanceThreshold"], at: at)
        var path = ""
        if let v = field(json, "vectorField") {
            try checkKeys(v, ["fieldPath"], at: "\(at).vector_field")
            if let p = field(v, "fieldPath") {
                guard case .string(let text) = p else { throw bad("\(at).vector_field.field_path", "(TYPE_STRING), \(p.serialized)") }
                path = text
            }
        }
        guard !path.isEmpty else { throw .invalidArgument("Invalid empty property path string.") }
        var measure: StructuredQuery.FindNearest.Measure?
        switch enumName(field(json, "distanceMeasure"), EnumNumbers.distanceMeasure) {
        case nil, "DISTANCE_MEASURE_UNSPECIFIED": measure = nil
        case "EUCLIDEAN": measure = .euclidean
        case "COSINE": measure = .cosine
        case "DOT_PRODUCT": measure = .dotProduct
        default:
            throw bad("\(at).distance_measure", "(type.googleapis.com/google.firestore.v1.StructuredQuery.FindNearest.DistanceMeasure), \(field(json, "distanceMeasure")?.serialized ?? "")")
        }
        var resultField = ""
        if let r = field(json, "distanceResultField") {
            guard case .string(let text) = r else { throw bad("\(at).distance_result_field", "(TYPE_STRING), \(r.serialized)") }
            resultField = text
        }
        return StructuredQuery.FindNearest(
            vectorField: try FieldPath(parsing: path),
            queryVector: try field(json, "queryVector").map { j throws(FirestoreError) in try decodeValue(j, at: "\(at).query_vector") } ?? .null,
            measure: measure,
            limit: try field(json, "limit").map { j throws(FirestoreError) in Int(try decodeInt32(j, at: "\(at).limit")) } ?? 0,
            distanceResultField: resultField,
            distanceThreshold: try field(json, "distanceThreshold").map { j throws(FirestoreError) in try decodeDouble(j, at: "\(at).distance_threshold") })
    }

    package static func decodeCursor(_ json: JSON, at: String) throws(FirestoreError) -> StructuredQuery.Cursor {
        try checkKeys(json, ["values", "before"], at: at)
        var values: [Value] = []
        if case .array(let items)? = json["values"] {
            for (i, item) in items.enumerated() { values.append(try decodeValue(item, at: "\(at).values[\(i)]")) }
        }
        var before = false
        if let b = json["before"] {
            guard let v = boolValue(b) else { throw bad("\(at).before", "(TYPE_BOOL), \(b.serialized)") }
            before = v
        }
        return .init(values: values, before: before)
    }

    package static func decodeFilter(_ json: JSON, at: String) throws(FirestoreError) -> Filter {
        try checkKeys(json, ["fieldFilter", "unaryFilter", "compositeFilter"], at: at)
        guard let pairs = json.objectPairs, pairs.count == 1, let (rawKey, body) = pairs.first else {
            throw .invalidArgument("A filter at '\(at)' must set exactly one of fieldFilter, unaryFilter or compositeFilter.")
        }
        switch camel(rawKey) {
        case "fieldFilter":
            try checkKeys(body, ["field", "op", "value"], at: "\(at).field_filter")
            let path = try decodeFieldReference(body["field"], at: "\(at).field_filter.field")
            guard let opName = enumName(body["op"], EnumNumbers.fieldOperator), let op = Filter.Operator(rawValue: opName) else {
                throw .invalidArgument("A field filter at '\(at)' needs a valid operator; got \(body["op"]?.serialized ?? "none").")
            }
            guard let v = body["value"] else { throw .invalidArgument("A field filter at '\(at)' needs a value.") }
            return .field(path, op, try decodeValue(v, at: "\(at).field_filter.value"))
        case "unaryFilter":
            try checkKeys(body, ["field", "op"], at: "\(at).unary_filter")
            let path = try decodeFieldReference(body["field"], at: "\(at).unary_filter.field")
            guard let opName = enumName(body["op"], EnumNumbers.unaryOperator), let op = Filter.UnaryOperator(rawValue: opName) else {
                throw .invalidArgument("A unary filter at '\(at)' needs a valid operator; got \(body["op"]?.serialized ?? "none").")
            }
            return .unary(path, op)
        default:
            try checkKeys(body, ["op", "filters"], at: "\(at).composite_filter")
            guard let opName = enumName(body["op"], EnumNumbers.compositeOperator),
                  let op = Filter.CompositeOperator(rawValue: opName) else {
                throw .invalidArgument("A composite filter at '\(at)' needs the operator AND or OR; got \(body["op"]?.serialized ?? "none").")
            }
            var filters: [Filter] = []
            if case .array(let items)? = body["filters"] {
                for (i, item) in items.enumerated() { filters.append(try decodeFilter(item, at: "\(at).composite_filter.filters[\(i)]")) }
            }
            return .composite(op, filters)
        }
    }

    package static func decodeAggregations(_ json: JSON?, at: String) throws(FirestoreError) -> [Aggregation] {
        guard case .array(let items)? = json else { return [] }
        var out: [Aggregation] = []
        var unnamed = 0
        for (i, item) in items.enumerated() {
            let here = "\(at)[\(i)]"
            try checkKeys(item, ["alias", "count", "sum", "avg"], at: here)
            // The k-th aggregation without an alias is field_k, counting only those (as the emulator).
            var alias: String
            if case .string(let a)? = item["alias"], !a.isEmpty { alias = a } else { unnamed += 1; alias = "field_\(unnamed)" }
            // count, sum and avg are one oneof: the emulator's JSON reader refuses two of them.
            let kinds = ["count", "sum", "avg"].count { name in
                switch field(item, name) { case nil, .null?: false; default: true }
            }
            if kinds > 1 {
                throw .invalidArgument("Payload isn't valid for request: aggregation '\(here)' sets more than one of count, sum and avg.")
            }
            if let c = item["count"] {
                try checkKeys(c, ["upTo"], at: "\(here).count")
                var upTo: Int64?
                // An Int64Value written as a plain number, as the emulator's REST reader takes it
                // (`{"value": 2}` is refused there: r10-agg-up-to-wrapper).
                if let u = field(c, "upTo") { upTo = try decodeInt64(u, at: "\(here).count.up_to") }
                out.append(.init(alias: alias, kind: .count(upTo: upTo)))
            } else if let s = item["sum"] {
                try checkKeys(s, ["field"], at: "\(here).sum")
                out.append(.init(alias: alias, kind: .sum(try decodeFieldReference(s["field"], at: "\(here).sum.field"))))
            } else if let a = item["avg"] {
                try checkKeys(a, ["field"], at: "\(here).avg")
                out.append(.init(alias: alias, kind: .average(try decodeFieldReference(a["field"], at: "\(here).avg.field"))))
            } else {
                throw .invalidArgument("Aggregation at '\(here)' must set one of count, sum or avg.")
            }
        }
        return out
    }
}

/// The numbers of the Firestore enums a REST body may give by number (the values of query.proto
/// and write.proto), for ``RESTCodec/enumName(_:_:)``.
enum EnumNumbers {
    static let fieldOperator = [0: "OPERATOR_UNSPECIFIED", 1: "LESS_THAN", 2: "LESS_THAN_OR_EQUAL", 3: "GREATER_THAN",
                                4: "GREATER_THAN_OR_EQUAL", 5: "EQUAL", 6: "NOT_EQUAL", 7: "ARRAY_CONTAINS", 8: "IN",
                                9: "ARRAY_CONTAINS_ANY", 10: "NOT_IN"]
    static let unaryOperator = [0: "OPERATOR_UNSPECIFIED", 2: "IS_NAN", 3: "IS_NULL", 4: "IS_NOT_NAN", 5: "IS_NOT_NULL"]
    static let compositeOperator = [0: "OPERATOR_UNSPECIFIED", 1: "AND", 2: "OR"]
    static let direction = [0: "DIRECTION_UNSPECIFIED", 1: "ASCENDING", 2: "DESCENDING"]
    static let distanceMeasure = [0: "DISTANCE_MEASURE_UNSPECIFIED", 1: "EUCLIDEAN", 2: "COSINE", 3: "DOT_PRODUCT"]
    static let serverValue = [0: "SERVER_VALUE_UNSPECIFIED", 1: "REQUEST_TIME"]
}
