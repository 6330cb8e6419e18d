/// The name of a bucket, checked against Cloud Storage's naming rules, and the Firebase project
/// it belongs to.
package struct BucketName: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The name as given.
    package let text: String

    /// Checks `text`: 3 to 63 characters (up to 222 when dotted, each dot-separated part at
    /// most 63), lower-case letters, digits, `-`, `_` and `.`, starting and ending with a letter
    /// or digit.
    package init(_ text: String) throws(StorageError) {
        if let problem = Self.problem(with: text) {
            throw StorageError.invalidArgument("Invalid bucket name: '\(text)': \(problem).")
        }
        self.text = text
    }

    /// Why `text` is not a valid bucket name, or nil when it is one.
    package static func problem(with text: String) -> String? {
        let limit = text.contains(".") ? 222 : 63
        guard (3...limit).contains(text.count) else { return "a bucket name has 3 to \(limit) characters" }
        let allowed: (Character) -> Bool = { $0.isASCII && ($0.isLowercase || $0.isNumber || "-_.".contains($0)) }
        guard text.allSatisfy(allowed) else { return "only lower-case letters, digits, '-', '_' and '.' are allowed" }
        let edge: (Character?) -> Bool = { $0.map { $0.isLowercase || $0.isNumber } ?? false }
        guard edge(text.first), edge(text.last) else { return "a bucket name starts and ends with a letter or digit" }
        if text.split(separator: ".", omittingEmptySubsequences: false).contains(where: { $0.isEmpty || $0.count > 63 }) {
            return "each dot-separated part has 1 to 63 characters"
        }
        return nil
    }

    /// The project whose default bucket this is: the name without `.appspot.com` or
    /// `.firebasestorage.app` (`demo-app.appspot.com` → `demo-app`), or the whole name for other
    /// buckets. Storage rules' `firestore.get()` reads this project's Firestore, and a `demo-`
    /// project gets open rules when none are loaded, as with the official emulator.
    package var projectID: String {
        for suffix in [".appspot.com", ".firebasestorage.app"] where text.hasSuffix(suffix) && text.count > suffix.count {
            return String(text.dropLast(suffix.count))
        }
        return text
    }

    package var description: String { text }

    package static func < (lhs: BucketName, rhs: BucketName) -> Bool { lhs.text < rhs.text }
}
