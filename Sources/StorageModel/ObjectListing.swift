import HearthJSON

/// What a listing asks for: the objects of a bucket under a prefix, with names rolled up at a
/// delimiter into prefixes ("folders"), one page at a time.
package struct ListRequest: Sendable, Equatable {
    package var prefix = ""
    /// Names are rolled up at the first delimiter after the prefix; nil or empty: no roll-up.
    package var delimiter: String?
    /// Where the previous page ended (``ListPage/nextPageToken``).
    package var pageToken: String?
    /// At most this many entries, items and prefixes together, as Cloud Storage counts them.
    package var maxResults = 1000
    /// Only names at or after this (GCS `startOffset`).
    package var startOffset: String?
    /// Only names before this (GCS `endOffset`).
    package var endOffset: String?
    /// Objects whose names end in the delimiter right after the prefix are listed as items as
    /// well as prefixes (GCS `includeTrailingDelimiter`).
    package var includeTrailingDelimiter = false

    package init() {}
}

/// One page of a listing: object names and prefixes, each in byte order.
package struct ListPage: Sendable, Equatable {
    package var items: [String] = []
    package var prefixes: [String] = []
    /// Present when more entries follow; pass it as the next request's page token.
    package var nextPageToken: String?

    package init(items: [String] = [], prefixes: [String] = [], nextPageToken: String? = nil) {
        self.items = items
        self.prefixes = prefixes
        self.nextPageToken = nextPageToken
    }
}

/// Pages through a bucket's names: the listing semantics of Cloud Storage over any ordered
/// source of names, so that the store only answers "the next names from here".
///
/// A prefix rolled up at the delimiter is returned once, and the scan then jumps past every
/// name under it: a listing of one folder costs the entries it returns, not the objects below
/// them. Page tokens are opaque (base64url of where the page ended).
package enum ObjectListing {
    /// How many names to ask the source for at a time.
    static let batch = 256

    /// One page of `request`.
    ///
    /// - Parameter names: Up to `limit` names at or after `from` (bytes), in byte order.
    package static func page(_ request: ListRequest, names: (_ from: [UInt8], _ limit: Int) throws -> [[UInt8]]) throws -> ListPage {
        let prefix = Array(request.prefix.utf8)
        let delimiter = request.delimiter.flatMap { $0.isEmpty ? nil : Array($0.utf8) }
        let end = request.endOffset.map { Array($0.utf8) }
        var key = prefix
        if let start = request.startOffset.map({ Array($0.utf8) }), start.lexicographicallyPrecedes(key) == false { key = start }
        if let token = request.pageToken {
            guard let resume = PageToken.decode(token) else { throw StorageError.invalidArgument("Invalid page token: \(token).") }
            if key.lexicographicallyPrecedes(resume) { key = resume }
        }
        let maxResults = max(1, request.maxResults)
        var page = ListPage()
        var count = 0
        var resumeAfterLast: [UInt8]?
        scan: while true {
            let batch = try names(key, Self.batch)
            if batch.isEmpty { break }
            for name in batch {
                guard name.starts(with: prefix), end.map({ name.lexicographicallyPrecedes($0) }) ?? true else { break scan }
                if count == maxResults {
                    page.nextPageToken = resumeAfterLast.map(PageToken.encode)
                    break scan
                }
                if let delimiter, let cut = Self.index(of: delimiter, in: name, from: prefix.count) {
                    let rolledUp = Array(name[..<(cut + delimiter.count)])
                    page.prefixes.append(String(decoding: rolledUp, as: UTF8.self))
                    if request.includeTrailingDelimiter && rolledUp.count == name.count {
                        page.items.append(String(decoding: name, as: UTF8.self))
                    }
                    count += 1
                    guard let next = successor(of: rolledUp) else { break scan }
                    resumeAfterLast = next
                    key = next
                    continue scan
                }
                page.items.append(String(decoding: name, as: UTF8.self))
                count += 1
                resumeAfterLast = name + [0]
                key = name + [0]
            }
        }
        return page
    }

    /// The first position of `needle` in `haystack` at or after `start`.
    static func index(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        for index in start...(haystack.count - needle.count) where haystack[index] == needle[0] {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
        }
        return nil
    }

    /// The smallest byte string greater than every string starting with `bytes`; nil when
    /// there is none (all bytes 0xFF).
    package static func successor(of bytes: [UInt8]) -> [UInt8]? {
        var result = bytes
        while let last = result.last, last == 0xFF { result.removeLast() }
        guard let last = result.popLast() else { return nil }
        result.append(last + 1)
        return result
    }
}

/// The page token: where the next page starts, base64url-encoded.
enum PageToken {
    static func encode(_ key: [UInt8]) -> String {
        "h" + Base64.encodeURLSafe(key)
    }

    static func decode(_ token: String) -> [UInt8]? {
        guard token.hasPrefix("h") else { return nil }
        return Base64.decode(token.dropFirst())
    }
}
