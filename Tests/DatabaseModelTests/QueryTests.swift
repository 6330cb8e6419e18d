@testable import DatabaseModel
import HearthJSON
import Testing

@Suite("Queries")
struct QueryTests {
    static let data = #"""
    {"a": {"n": 3, "s": "x"}, "b": {"n": 1}, "c": {"n": true}, "d": {"n": "str"}, "e": {"n": {"o": 1}},
     "f": {"x": 1}, "g": {"n": false}, "h": {"n": 1}, "1": {"n": 2}, "10": {"n": -5}}
    """#

    func run(_ parameters: [String: String]) throws -> [String] {
        let node = try NodeReader(serverValues: nil).node(fromText: Array(Self.data.utf8), at: .root)
        let query = try #require(try DatabaseQuery(rest: parameters))
        return query.select(from: node).map(\.0.string)
    }

    @Test("orderByChild sorts missing < false < true < numbers < strings < objects, ties by key")
    func childOrder() throws {
        #expect(try run(["orderBy": #""n""#]) == ["f", "g", "c", "10", "b", "h", "1", "a", "d", "e"])
    }

    @Test("orderBy $key puts integer keys first", arguments: [
        ([:], ["1", "10", "a", "b", "c", "d", "e", "f", "g", "h"]),
        (["startAt": #""b""#, "endAt": #""d""#], ["b", "c", "d"]),
        (["startAfter": #""b""#, "endBefore": #""e""#], ["c", "d"]),
        (["limitToFirst": "3"], ["1", "10", "a"]),
        (["limitToLast": "2"], ["g", "h"]),
        (["startAt": #""b""#, "limitToLast": "2"], ["g", "h"]),
        (["equalTo": #""c""#], ["c"]),
    ])
    func keyOrder(extra: [String: String], expected: [String]) throws {
        var parameters = extra
        parameters["orderBy"] = #""$key""#
        #expect(try run(parameters) == expected)
    }

    @Test("ranges and limits on a child", arguments: [
        (["startAt": "1", "endAt": "2"], ["b", "h", "1"]),
        (["startAfter": "1"], ["1", "a", "d", "e"]),
        (["endBefore": "1"], ["f", "g", "c", "10"]),
        (["equalTo": "1"], ["b", "h"]),
        (["equalTo": #"1,"c""#], []),
        (["startAt": #"1,"h""#], ["h", "1", "a", "d", "e"]),
        (["equalTo": "true"], ["c"]),
        (["equalTo": "null"], ["f"]),
        (["startAt": #""a""#], ["d", "e"]),
        (["limitToFirst": "2"], ["f", "g"]),
        (["limitToLast": "2", "endAt": "3"], ["1", "a"]),
    ])
    func childRange(extra: [String: String], expected: [String]) throws {
        var parameters = extra
        parameters["orderBy"] = #""n""#
        #expect(try run(parameters) == expected)
    }

    @Test("bad REST queries are refused with the database's messages", arguments: [
        ["startAt": "1"], ["orderBy": "n"], ["orderBy": #""$key""#, "startAt": "1"], ["orderBy": #""n""#, "limitToFirst": "-1"],
        ["orderBy": #""n""#, "limitToFirst": "1", "limitToLast": "1"], ["orderBy": #""n""#, "equalTo": "1", "startAt": "1"],
        ["orderBy": #""a.b""#],
    ])
    func invalid(parameters: [String: String]) {
        #expect(throws: DatabaseError.self) { try DatabaseQuery(rest: parameters) }
    }

    @Test("the wire query object (q) decodes as the SDK writes it")
    func wire() throws {
        let q = try DatabaseQuery(wire: JSON.parse(Array(#"{"sp":1,"sn":"[MAX_NAME]","sin":false,"ep":5,"l":3,"vf":"r","i":"n"}"#.utf8)))
        #expect(q.index == .child(DatabasePath("n")))
        #expect(q.start == QueryBound(value: .leaf(.number(1), nil), name: .max, inclusive: false))
        #expect(q.end?.name == .max)
        #expect(q.limit == 3 && q.anchor == .last)
        #expect(try DatabaseQuery(wire: .object([])).isDefault)
    }
}

@Suite("Children maps")
struct ChildMapTests {
    @Test("a persistent map agrees with a sorted array through random inserts and removals")
    func randomized() {
        var map = ChildMap()
        var reference: [String: Int] = [:]
        var generator = SystemRandomNumberGenerator()
        var snapshots: [(ChildMap, [String: Int])] = []
        for step in 0..<3000 {
            let key = String(Int.random(in: 0..<400, using: &generator))
            if Bool.random(using: &generator) {
                map = map.inserting(DatabaseKey(key), .leaf(.number(Double(step)), nil))
                reference[key] = step
            } else {
                map = map.removing(DatabaseKey(key))
                reference[key] = nil
            }
            if step % 500 == 0 { snapshots.append((map, reference)) }
        }
        for (m, r) in snapshots + [(map, reference)] {
            let expected = r.keys.map(DatabaseKey.init).sorted()
            #expect(m.keys == expected)
            #expect(m.count == expected.count)
            for (i, key) in expected.enumerated() {
                #expect(m.element(at: i)?.0 == key)
                #expect(m.rank(of: key) == i)
            }
        }
    }
}

@Suite("Push IDs")
struct PushIDTests {
    @Test("push IDs are 20 characters and sort in the order they were made, also within one millisecond")
    func ordering() {
        let generator = PushIDGenerator()
        var ids: [String] = []
        for t in [1_700_000_000_000, 1_700_000_000_000, 1_700_000_000_000, 1_700_000_000_001, 1_700_000_000_500] as [Int64] {
            ids.append(generator.next(at: t))
        }
        #expect(ids.allSatisfy { $0.count == 20 })
        #expect(ids.map(DatabaseKey.init) == ids.map(DatabaseKey.init).sorted())
        #expect(Set(ids).count == ids.count)
        #expect(ids[0].hasPrefix("-N"))
    }
}
