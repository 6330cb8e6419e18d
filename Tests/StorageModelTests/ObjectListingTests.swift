import Testing
import StorageModel

@Suite("Listings: prefixes, delimiters and pages")
struct ObjectListingTests {
    /// In UTF-8 byte order, the order of listings: "é" (0xC3 0xA9) after "z".
    static let names = ["a", "b/1", "b/2", "b/c/3", "c/", "c/x", "d", "e/f/g", "z/1", "é"]

    /// The source a store would be: the sorted names at or after a key.
    static func source(_ names: [String]) -> ([UInt8], Int) throws -> [[UInt8]] {
        let sorted = names.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
        return { from, limit in Array(sorted.filter { !$0.lexicographicallyPrecedes(from) }.prefix(limit)) }
    }

    static func request(prefix: String = "", delimiter: String? = nil, max: Int = 1000, start: String? = nil, end: String? = nil,
                        trailing: Bool = false) -> ListRequest {
        var request = ListRequest()
        request.prefix = prefix
        request.delimiter = delimiter
        request.maxResults = max
        request.startOffset = start
        request.endOffset = end
        request.includeTrailingDelimiter = trailing
        return request
    }

    @Test("one page", arguments: [
        (request(), names, [String]()),
        (request(delimiter: "/"), ["a", "d", "é"], ["b/", "c/", "e/", "z/"]),
        (request(prefix: "b/", delimiter: "/"), ["b/1", "b/2"], ["b/c/"]),
        (request(prefix: "b/"), ["b/1", "b/2", "b/c/3"], []),
        (request(prefix: "c/", delimiter: "/"), ["c/", "c/x"], []),
        (request(delimiter: "/", trailing: true), ["a", "c/", "d", "é"], ["b/", "c/", "e/", "z/"]),
        (request(prefix: "nothing/"), [], []),
        (request(start: "b/2", end: "d"), ["b/2", "b/c/3", "c/", "c/x"], []),
        (request(delimiter: "/c"), ["a", "b/1", "b/2", "c/", "c/x", "d", "e/f/g", "z/1", "é"], ["b/c"]),
    ])
    func page(_ request: ListRequest, _ items: [String], _ prefixes: [String]) throws {
        let page = try ObjectListing.page(request, names: Self.source(Self.names))
        #expect(page.items == items)
        #expect(page.prefixes == prefixes)
        #expect(page.nextPageToken == nil)
    }

    /// Paging through with any page size returns every entry once, in order, items and
    /// prefixes counting together, with a token on every page but the last.
    @Test("pages add up to the whole listing", arguments: [1, 2, 3, 4, 7, 100])
    func paging(size: Int) throws {
        for delimiter in [nil, "/"] {
            var request = Self.request(delimiter: delimiter, max: size)
            let whole = try ObjectListing.page(Self.request(delimiter: delimiter), names: Self.source(Self.names))
            var items: [String] = [], prefixes: [String] = [], pages = 0
            while true {
                let page = try ObjectListing.page(request, names: Self.source(Self.names))
                #expect(page.items.count + page.prefixes.count <= size)
                items += page.items
                prefixes += page.prefixes
                pages += 1
                guard let token = page.nextPageToken else { break }
                request.pageToken = token
            }
            #expect(items == whole.items && prefixes == whole.prefixes)
            #expect(pages == max(1, (whole.items.count + whole.prefixes.count + size - 1) / size))
        }
    }

    @Test("a rolled-up prefix costs one step, not one per object under it")
    func skipsPast() throws {
        let many = (0..<5000).map { "big/\($0)" } + ["small"]
        var asked = 0
        let base = Self.source(many)
        let page = try ObjectListing.page(Self.request(delimiter: "/")) { from, limit in
            asked += 1
            return try base(from, limit)
        }
        #expect(page.prefixes == ["big/"] && page.items == ["small"])
        #expect(asked <= 3)
    }

    @Test("a page token that is not one is a 400")
    func badToken() {
        var request = Self.request()
        request.pageToken = "not-a-token"
        #expect(throws: StorageError.self) { try ObjectListing.page(request, names: Self.source(Self.names)) }
    }

    @Test("successor of a byte string", arguments: [
        ([UInt8(0x61)], [UInt8(0x62)] as [UInt8]?), ([0x61, 0xFF], [0x62]), ([0xFF, 0xFF], nil), ([0x2F], [0x30]),
    ])
    func successor(_ bytes: [UInt8], _ expected: [UInt8]?) {
        #expect(ObjectListing.successor(of: bytes) == expected)
    }
}
