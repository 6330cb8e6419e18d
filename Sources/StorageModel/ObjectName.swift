/// The name of an object in a bucket, checked against Cloud Storage's naming rules.
///
/// Names are opaque strings, never file paths: object bytes live in files named by random IDs,
/// so a name like `../../etc/passwd` is just a name (Cloud Storage accepts it, and so does
/// Hearth) and cannot reach outside the data directory. What Cloud Storage refuses, Hearth
/// refuses with the same 400: an empty name, `.` or `..`, more than 1024 bytes of UTF-8,
/// carriage returns, line feeds and NUL, and names under `.well-known/acme-challenge/`.
///
/// Names order by their UTF-8 bytes, as listings do.
package struct ObjectName: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The longest name, in UTF-8 bytes.
    package static let maxBytes = 1024

    /// The name as given.
    package let text: String

    /// Checks `text` against the naming rules.
    package init(_ text: String) throws(StorageError) {
        if let problem = Self.problem(with: text) {
            throw StorageError.invalidArgument("The object name '\(Self.printable(text))' is not valid: \(problem).")
        }
        self.text = text
    }

    /// Why `text` is not a valid object name, or nil when it is one.
    package static func problem(with text: String) -> String? {
        if text.isEmpty { return "it is empty" }
        if text == "." || text == ".." { return "'.' and '..' are not object names" }
        if text.utf8.count > maxBytes { return "it is \(text.utf8.count) bytes of UTF-8, more than \(maxBytes)" }
        if text.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) { return "it contains a carriage return or line feed" }
        if text.utf8.contains(0) { return "it contains a NUL character" }
        if text.hasPrefix(".well-known/acme-challenge/") { return "names under .well-known/acme-challenge/ are reserved" }
        return nil
    }

    /// The UTF-8 bytes, the order of listings.
    package var bytes: [UInt8] { Array(text.utf8) }

    /// The last `/`-separated part: the file name a download is saved under.
    package var lastComponent: String {
        text.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? text
    }

    package var description: String { text }

    package static func < (lhs: ObjectName, rhs: ObjectName) -> Bool {
        lhs.text.utf8.lexicographicallyPrecedes(rhs.text.utf8)
    }

    /// The name with control characters escaped, for messages.
    static func printable(_ text: String) -> String {
        let clipped = text.utf8.count > 200 ? String(text.prefix(200)) + "…" : text
        return clipped.unicodeScalars.map { $0.value < 0x20 ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()
    }
}
