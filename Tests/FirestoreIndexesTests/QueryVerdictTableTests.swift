import FirestoreIndexes
import FirestoreModel
import FirestoreQuery
import HearthJSON
import Testing

/// Every row of `fixtures/indexes/query-verdicts.jsonl` (docs/composite-indexes.md): the
/// normalized order, the verdict (per disjunct for OR queries), and for a missing index the
/// suggested index, the link parameter and production's message, byte for byte.
@Suite("Index verdicts: the query table")
struct QueryVerdictTableTests {
    static let rows = (try? VerdictRow.all()) ?? []

    @Test("the table has its 252 rows")
    func tableIsComplete() {
        #expect(Self.rows.count == 252)
        #expect(Set(Self.rows.map(\.id)).count == Self.rows.count)
    }

    @Test("each row gets production's verdict", arguments: rows)
    func row(_ row: VerdictRow) throws {
        let query = try row.build()
        let definitions = try IndexFixtures.definitions(row.indexSet)
        let shape = QueryShape(query, aggregatedFields: row.aggregatedFields)
        let verdict = definitions.verdict(for: shape)
        let expect = row.expect
        let set = String(row.indexSet.prefix { $0 != "." })

        if let expected = expect["normalizedOrder"]?.array {
            let order = shape.order.map { "\($0.field.canonical) \($0.direction == .ascending ? "ASC" : "DESC")" }
            #expect(order == expected.map { "\($0.array![0].string!) \($0.array![1].string!)" }, "normalized order")
        }
        if !row.aggregatedFields.isEmpty, let aggregating = try? query.forAggregating(row.aggregatedFields) {
            #expect(shape.order.map(\.field) == aggregating.orderBy.map(\.field), "the order Query.forAggregating reads")
        }

        let kinds = verdict.disjuncts.map { service -> String in
            switch service {
            case nil: "needs-index"
            case .singleField?: "single-field"
            case .composite(let position)?: "composite:\(set)#\(position)"
            case .merge?: "merge"
            }
        }
        let expectedVerdict = expect["verdict"]!.string!
        if let disjuncts = expect["disjuncts"]?.array {
            #expect(kinds == disjuncts.map { $0.string! }, "disjuncts")
            #expect(verdict.isServed == (expectedVerdict == "served"))
        } else if expectedVerdict == "needs-index" {
            #expect(!verdict.isServed)
        } else {
            #expect(kinds == [expectedVerdict])
        }
        guard expectedVerdict == "needs-index" else {
            #expect(verdict.missing == nil)
            return
        }
        let missing = try #require(verdict.missing)
        let expectedKind = expect["messageKind"]!.string!
        #expect("\(missing.kind)" == ["composite": "composite", "single-field": "singleField", "vector": "vector"][expectedKind])

        let index = expect["index"]!
        #expect(missing.index.collectionGroup == index["collectionGroup"]!.string!)
        #expect(missing.index.queryScope.rawValue == index["queryScope"]!.string!)
        let fields = missing.index.fields.map { field -> String in
            if case .vector(let dimension) = field.mode {
                return field.fieldPath.canonical + " " + #"{"vectorConfig":{"dimension":\#(dimension),"flat":{}}}"#
            }
            return field.fieldPath.canonical + " " + field.mode.word
        }
        #expect(fields == index["fields"]!.array!.map { "\($0.array![0].string!) \($0.array![1].string ?? $0.array![1].serialized)" })

        if let parameter = expect["linkParam"]?.string {
            #expect(missing.link(in: row.database)?.parameter == parameter, "link parameter")
        }
        if let multiple = expect["multipleInequalities"] {
            #expect(missing.hasMultipleInequalities == (multiple == .bool(true)))
        }
        #expect(missing.singleFieldKind == expect["singleFieldKind"]?.string)
        let message = missing.message(in: row.database)
        #expect(message == expect["message"]!.string!, "message")
        #expect(missing.errorMessage(in: row.database) == message + "\n" + missing.fileEntry)
        #expect(missing.error(in: row.database).code == .failedPrecondition)

        // The entry to paste reads back as the suggested index (or override).
        switch missing.suggestion {
        case .composite(let suggested):
            let (read, diagnostics) = IndexDefinitions.parse(#"{"indexes": ["# + missing.fileEntry + "]}")
            #expect(diagnostics.isEmpty)
            #expect(read.indexes.count == 1 && read.indexes[0].isSameIndex(as: suggested))
        case .fieldOverride(let override):
            let (read, diagnostics) = IndexDefinitions.parse(#"{"indexes": [], "fieldOverrides": ["# + missing.fileEntry + "]}")
            #expect(diagnostics.isEmpty)
            #expect(read.fieldOverrides == [override])
            let field = try #require(missing.index.fields.first)
            let enabled = read.singleFieldIndexes(collectionGroup: override.collectionGroup, field: field.fieldPath)
            #expect(enabled.contains(SingleFieldIndex(field.mode, missing.index.queryScope)))
        }
    }

    @Test("with the suggested entry added to its file, every row's query is served")
    func suggestionsServe() throws {
        for row in Self.rows {
            let query = try row.build()
            let definitions = try IndexFixtures.definitions(row.indexSet)
            let shape = QueryShape(query, aggregatedFields: row.aggregatedFields)
            var remaining = definitions.verdict(for: shape)
            var text = try IndexFixtures.text(row.indexSet)
            // (An OR query may need one index per disjunct.)
            for _ in 0..<4 {
                guard let missing = remaining.missing else { break }
                let merged = IndexFileMerge(merging: [missing.suggestion], into: text)
                #expect(merged.diagnostics.isEmpty && merged.added == [missing.suggestion], "\(row.id)")
                text = merged.text
                let (updated, diagnostics) = IndexDefinitions.parse(text)
                #expect(diagnostics.isEmpty, "\(row.id): \(diagnostics)")
                remaining = updated.verdict(for: shape)
            }
            #expect(remaining.isServed, "\(row.id): \(remaining)")
        }
    }
}
