import FirestoreModel
import Foundation
import Testing

@Suite("Resource paths")
struct ResourcePathTests {
    @Test("numeric IDs are __id<int64>__ and nothing else", arguments: [
        ("__id7__", Int64?.some(7)),
        ("__id-3__", -3),
        ("__id0__", nil),
        ("__id-0__", nil),
        ("__id007__", nil),
        ("__id-01__", nil),
        ("__id9223372036854775807__", .max),
        ("__id-9223372036854775808__", .min),
        ("__id9223372036854775808__", nil),
        ("__id-9223372036854775809__", nil),
        ("__id__", nil),
        ("__id-__", nil),
        ("__id+5__", nil),
        ("__id5x__", nil),
        ("__id 5__", nil),
        ("__id5_", nil),
        ("_id5__", nil),
        ("__ID5__", nil),
        ("d0-1", nil),
        ("", nil),
    ])
    func numericIDs(segment: String, expected: Int64?) {
        #expect(ResourcePath.numericID(segment) == expected)
        #expect(ResourcePath.numericID(Substring("/" + segment).dropFirst()) == expected)
    }

    @Test("numeric IDs sort first, by value; other segments by UTF-8 bytes")
    func segmentOrder() {
        let sorted = ["__id-5__", "__id2__", "__id10__", "A", "__id__", "a", "é"]
        for (i, a) in sorted.enumerated() {
            for (j, b) in sorted.enumerated() {
                let expected: ComparisonResult = i < j ? .orderedAscending : (i > j ? .orderedDescending : .orderedSame)
                #expect(ResourcePath.compareSegments(a, b) == expected, "\(a) vs \(b)")
            }
        }
    }
}
