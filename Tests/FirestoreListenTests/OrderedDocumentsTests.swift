import FirestoreListen
import FirestoreModel
import Testing
import Foundation

@Suite("Ordered documents")
struct OrderedDocumentsTests {
    @Test("inserts, removals and indexes agree with a sorted array over 5,000 random operations")
    func againstSortedArray() {
        var seed: UInt64 = 12345
        func next(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(n))
        }
        let t = Timestamp(seconds: 0, nanos: 0)
        func doc(_ id: Int, _ score: Int) -> Document {
            Document(key: ResourcePath(["c", String(format: "d%05d", id)]), fields: ["s": .integer(Int64(score))], createTime: t, updateTime: t)
        }
        let ordered: OrderedDocuments.Ordering = { a, b in
            let (x, y) = (a.fields["s"]!, b.fields["s"]!)
            return x.compare(to: y) == .orderedSame ? a.key < b.key : x.compare(to: y) == .orderedAscending
        }
        var subject = OrderedDocuments(ordered)
        var model: [Document] = []
        for _ in 0..<5_000 {
            let id = next(800)
            let key = ResourcePath(["c", String(format: "d%05d", id)])
            if let i = model.firstIndex(where: { $0.key == key }) {
                #expect(subject.index(of: key) == i)
                #expect(subject.remove(key) == i)
                model.remove(at: i)
            } else {
                let d = doc(id, next(50))
                model.append(d)
                model.sort(by: ordered)
                #expect(subject.insert(d) == model.firstIndex { $0.key == key })
            }
        }
        #expect(subject.all.map(\.key) == model.map(\.key))
        #expect(subject.count == model.count)
    }
}
