/// The `Range` request header of a download, resolved against the object's size (RFC 9110
/// §14): `bytes=a-b`, `bytes=a-` and `bytes=-n`. Only the first range of a list is served, as
/// Cloud Storage does.
package enum ByteRange {
    /// The bytes to send: nil for the whole object (no header, or a header that is not a byte
    /// range, which the RFC says to ignore); throws ``StorageError/Code/rangeNotSatisfiable``
    /// when the range starts past the end.
    package static func resolve(_ header: String?, size: Int64) throws(StorageError) -> ClosedRange<Int64>? {
        guard let header else { return nil }
        let trimmed = header.trimmingSpaces
        guard trimmed.lowercased().hasPrefix("bytes=") else { return nil }
        let first = trimmed.dropFirst(6).split(separator: ",").first.map { String($0).trimmingSpaces } ?? ""
        let parts = first.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let unsatisfiable = StorageError(.rangeNotSatisfiable, "The requested range cannot be satisfied: \(header) of an object of \(size) bytes.",
                                         objectSize: size)
        if parts[0].isEmpty {
            guard let suffix = Int64(parts[1]), suffix >= 0 else { return nil }
            guard suffix > 0, size > 0 else { throw unsatisfiable }
            return max(0, size - suffix)...(size - 1)
        }
        guard let start = Int64(parts[0]), start >= 0 else { return nil }
        var last = size - 1
        if !parts[1].isEmpty {
            guard let end = Int64(parts[1]), end >= start else { return nil }
            last = min(end, size - 1)
        }
        guard start < size else { throw unsatisfiable }
        return start...last
    }
}

/// The `Content-Range` of a chunk of a GCS resumable upload: `bytes a-b/total`,
/// `bytes a-b/*` (total not known yet), `bytes */total` (no bytes: finish at this size) or
/// `bytes */*` (no bytes: report progress).
package struct ContentRange: Sendable, Equatable {
    /// The chunk's first and last byte offsets; nil when the request carries no bytes.
    package var bytes: ClosedRange<Int64>?
    /// The object's total size, when the client knows it.
    package var total: Int64?

    package init(bytes: ClosedRange<Int64>?, total: Int64?) {
        self.bytes = bytes
        self.total = total
    }

    /// Parses the header; nil when it is malformed.
    package init?(_ header: String) {
        let text = header.trimmingSpaces
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let parts = text.dropFirst(6).trimmingSpaces.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[1] == "*" {
            total = nil
        } else {
            guard let value = Int64(parts[1]), value >= 0 else { return nil }
            total = value
        }
        if parts[0] == "*" {
            bytes = nil
        } else {
            let ends = parts[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard ends.count == 2, let first = Int64(ends[0]), let last = Int64(ends[1]), first >= 0, last >= first else { return nil }
            if let total, last >= total { return nil }
            bytes = first...last
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(drop(while: isBlank).reversed().drop(while: isBlank).reversed())
    }
}
