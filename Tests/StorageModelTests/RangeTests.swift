import Testing
import StorageModel

@Suite("Byte ranges")
struct RangeTests {
    @Test("Range headers resolved against a 100-byte object", arguments: [
        (String?.none, ClosedRange<Int64>?.none), ("bytes=0-9", 0...9), ("bytes=10-", 10...99), ("bytes=-5", 95...99),
        ("bytes=90-500", 90...99), ("bytes=-500", 0...99), ("bytes=3-3", 3...3), ("bytes=5-9, 20-30", 5...9),
        ("items=0-9", nil), ("bytes=9-5", nil), ("bytes=x-", nil), ("bytes=-", nil),
    ])
    func resolve(_ header: String?, _ expected: ClosedRange<Int64>?) throws {
        #expect(try ByteRange.resolve(header, size: 100) == expected)
    }

    @Test("a range past the end is 416 with the size", arguments: ["bytes=100-", "bytes=200-300", "bytes=-0"])
    func unsatisfiable(_ header: String) {
        do throws(StorageError) {
            _ = try ByteRange.resolve(header, size: 100)
            Issue.record("expected 416")
        } catch {
            #expect(error.code == .rangeNotSatisfiable && error.objectSize == 100)
        }
    }

    @Test("Content-Range of resumable chunks", arguments: [
        ("bytes 0-9/100", ContentRange(bytes: 0...9, total: 100)), ("bytes 10-19/*", ContentRange(bytes: 10...19, total: nil)),
        ("bytes */100", ContentRange(bytes: nil, total: 100)), ("bytes */*", ContentRange(bytes: nil, total: nil)),
    ])
    func contentRange(_ header: String, _ expected: ContentRange) {
        #expect(ContentRange(header) == expected)
    }

    @Test("malformed Content-Range", arguments: ["bytes 9-0/100", "bytes 0-100/100", "0-9/100", "bytes 0-9", "bytes a-b/*", "bytes 0-9/-1"])
    func badContentRange(_ header: String) {
        #expect(ContentRange(header) == nil)
    }
}
