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

    @Test("byte order (the order commits take locks in) is total and consistent with equality")
    func byteOrder() {
        let paths = [["c", "__id10__"], ["c", "__id2__"], ["c", "a"], ["c", "a", "s", "x"], ["c", "e\u{301}"], ["c", "\u{E9}"],
                     ["b"], ["c"], ["c", ""], ["cc", "a"]].map(ResourcePath.init)
        for a in paths {
            #expect(!ResourcePath.byteOrdered(a, a))
            for b in paths where a != b {
                #expect(ResourcePath.byteOrdered(a, b) != ResourcePath.byteOrdered(b, a), "\(a) vs \(b)")
                for c in paths where ResourcePath.byteOrdered(a, b) && ResourcePath.byteOrdered(b, c) {
                    #expect(ResourcePath.byteOrdered(a, c), "\(a) < \(b) < \(c)")
                }
            }
        }
        // Unlike document order, numeric IDs are ordered by their bytes.
        #expect(ResourcePath.byteOrdered(ResourcePath(["c", "__id10__"]), ResourcePath(["c", "__id2__"])))
        #expect(ResourcePath(["c", "__id2__"]) < ResourcePath(["c", "__id10__"]))
    }

    @Test("paths and field paths are equal by bytes: canonically equivalent spellings are distinct")
    func byteEquality() {
        let composed = "\u{E9}", decomposed = "e\u{301}"
        #expect(composed == decomposed) // Swift's String equality, which Firestore names must not use
        let a = ResourcePath(["c", composed]), b = ResourcePath(["c", decomposed])
        #expect(a != b)
        #expect(Set([a, b, ResourcePath(["c", "\u{E9}"])]).count == 2)
        #expect(a < b || b < a)
        #expect(!ResourcePath(["c", composed, "s", "x"]).isDescendant(of: b))
        #expect(ResourcePath(["c", composed, "s", "x"]).isDescendant(of: a))
        let f = FieldPath([composed, "x"]), g = FieldPath([decomposed, "x"])
        #expect(f != g)
        #expect(Set([f, g]).count == 2)
        #expect(!f.isPrefixed(by: FieldPath([decomposed])))
        #expect(f.isPrefixed(by: FieldPath([composed])))
        #expect(f < g || g < f)
    }
}
