/// A path to a field inside a document: `address.city`, or with backtick quoting
/// `` `a.b`.c `` for segments that are not simple identifiers.
package struct FieldPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    package var segments: [String]

    package init(_ segments: [String]) { self.segments = segments }

    /// The special field path naming the document's key.
    package static let documentName = FieldPath(["__name__"])

    package var isDocumentName: Bool { segments == ["__name__"] }

    /// Parses a dotted field path with backtick quoting (`` \` `` and `\\` escape inside backticks).
    ///
    /// Throws INVALID_ARGUMENT for empty segments, unterminated quotes and stray characters.
    package init(parsing text: String) throws(FirestoreError) {
        var segments: [String] = []
        var current = ""
        var quoted = false
        var inQuotes = false
        var chars = Array(text).makeIterator()
        func bad(_ why: String) -> FirestoreError {
            .invalidArgument("Invalid field path \"\(text)\": \(why).")
        }
        while let c = chars.next() {
            if inQuotes {
                if c == "\\" {
                    guard let n = chars.next() else { throw bad("ends inside an escape") }
                    // C-style escapes, as the emulator reads them.
                    switch n {
                    case "\\", "`", "'", "\"": current.append(n)
                    case "n": current.append("\n")
                    case "t": current.append("\t")
                    case "r": current.append("\r")
                    case "f": current.append("\u{0C}")
                    case "b": current.append("\u{08}")
                    case "a": current.append("\u{07}")
                    case "v": current.append("\u{0B}")
                    case "u":
                        var hex = ""
                        for _ in 0..<4 { if let h = chars.next() { hex.append(h) } }
                        guard hex.count == 4, let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) else {
                            throw bad("bad \\u escape")
                        }
                        current.append(Character(scalar))
                    default: throw bad("unknown escape \\\(n)")
                    }
                } else if c == "`" {
                    guard !current.isEmpty else { throw bad("empty quoted segment") }
                    inQuotes = false
                } else {
                    current.append(c)
                }
            } else if c == "`" {
                guard current.isEmpty, !quoted else { throw bad("a quote must start a segment") }
                inQuotes = true
                quoted = true
            } else if c == "." {
                guard !current.isEmpty || quoted else { throw bad("empty segment") }
                segments.append(current)
                current = ""
                quoted = false
            } else {
                guard !quoted else { throw bad("characters after a closing backtick") }
                guard Self.isSimpleCharacter(c) else {
                    throw bad("segment characters other than letters, digits and '_' need backtick quoting")
                }
                if current.isEmpty, c.isASCII, c.isNumber {
                    throw bad("a segment starting with a digit needs backtick quoting")
                }
                current.append(c)
            }
        }
        guard !inQuotes else { throw bad("unterminated backtick") }
        guard !current.isEmpty || quoted else { throw bad("empty segment") }
        segments.append(current)
        self.segments = segments
    }

    /// Whether a segment can be written without backticks: `[A-Za-z_][A-Za-z0-9_]*`.
    package static func isSimple(_ segment: String) -> Bool {
        var bytes = segment.utf8.makeIterator()
        guard let first = bytes.next(), first == UInt8(ascii: "_") || isASCIILetter(first) else { return false }
        while let b = bytes.next() {
            guard b == UInt8(ascii: "_") || isASCIILetter(b) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) else { return false }
        }
        return true
    }

    private static func isSimpleCharacter(_ c: Character) -> Bool {
        guard let b = c.asciiValue else { return false }
        return b == UInt8(ascii: "_") || isASCIILetter(b) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"))
    }

    private static func isASCIILetter(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
    }

    /// The canonical string: segments joined by dots, quoted where needed.
    package var canonical: String {
        segments.map(Self.canonical(segment:)).joined(separator: ".")
    }

    /// One segment as the canonical string writes it: as is when simple, else in backticks.
    package static func canonical(segment s: String) -> String {
        isSimple(s) ? s : "`" + s.replacingAll("\\", with: "\\\\").replacingAll("`", with: "\\`") + "`"
    }

    package var description: String { canonical }

    package var parent: FieldPath { FieldPath(Array(segments.dropLast())) }

    /// Whether `self` equals `other` or lies below it.
    package func isPrefixed(by other: FieldPath) -> Bool {
        other.segments.count <= segments.count && zip(segments, other.segments).allSatisfy { $0.hasSameUTF8($1) }
    }

    /// Field paths are equal when their segments have the same bytes (see ``ResourcePath``).
    package static func == (a: FieldPath, b: FieldPath) -> Bool {
        a.segments.count == b.segments.count && zip(a.segments, b.segments).allSatisfy { $0.hasSameUTF8($1) }
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(segments.count)
        for segment in segments { segment.hashUTF8(into: &hasher) }
    }

    /// Segment-wise order (segments by UTF-8 bytes).
    package static func < (a: FieldPath, b: FieldPath) -> Bool {
        for (x, y) in zip(a.segments, b.segments) where !x.hasSameUTF8(y) { return utf8Less(x, y) }
        return a.segments.count < b.segments.count
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

extension FieldPath {
    /// Firestore's limits on a field path that a request names (a mask, a transform, a filter,
    /// an order, a projection, an aggregation), with the official emulator's messages.
    /// `__name__` alone is allowed where the document's key may be named.
    /// Transforms are not held to the depth and length limits (`limited: false`): the emulator
    /// applies them at any depth and length.
    package func validateAsReference(allowingName: Bool = true, limited: Bool = true, use: ReferenceUse = .comparison) throws(FirestoreError) {
        if isDocumentName && allowingName { return }
        if limited && segments.count > 20 {
            throw .invalidArgument("paths must have at most 20 elements")
        }
        if limited && dottedByteCount >= 1500 {
            throw .invalidArgument("property path is longer than 1500 bytes.")
        }
        try checkReservedNames(use)
    }

    /// Where a path is named, for the emulator's rules on reserved segments.
    package enum ReferenceUse: Sendable {
        /// Filters other than array membership, orders, sums and averages.
        case comparison
        /// `array-contains`, `array-contains-any`, projections and document masks.
        case membership
        /// Field transforms.
        case transform
    }

    /// Reserved segments (`__.+__`), as the emulator judges them, in its order: `__key__`
    /// anywhere; any other reserved name but `__name__` and `__type__` (the message names the
    /// path from it on); `__name__` inside a longer path (it is the key, `__key__`, there); and
    /// `__type__`, which compares (a vector's type) only as the last of several segments and not
    /// as a membership or a projection.
    func checkReservedNames(_ use: ReferenceUse) throws(FirestoreError) {
        if segments.contains("__key__") {
            throw .invalidArgument("Invalid property path member name \"__key__\".")
        }
        if let i = segments.firstIndex(where: { Self.isReservedName($0) && $0 != "__name__" && $0 != "__type__" }) {
            throw .invalidArgument("Invalid reserved name in field path \(FieldPath(Array(segments[i...])).canonical)")
        }
        if segments.count > 1, use != .transform, segments.contains("__name__") {
            throw .invalidArgument("the name __key__ is reserved")
        }
        for (i, s) in segments.enumerated() where s == "__type__" {
            if i == 0 || i != segments.count - 1 || use == .membership {
                throw .invalidArgument("the name __type__ is reserved")
            }
        }
        if segments == ["__name__"] {
            throw .invalidArgument("Invalid reserved name in field path __name__")
        }
    }
}

extension FieldPath {
    /// The UTF-8 length of the segments joined by dots, unquoted (what Firestore's path limits count).
    var dottedByteCount: Int { segments.reduce(segments.count - 1) { $0 + $1.utf8.count } }

    /// Checks a path named by a document mask (update, merge or read): as a reference, and
    /// shorter than 1500 bytes, as the emulator requires (a stored field name may reach 1500).
    package func validateAsMask() throws(FirestoreError) {
        try validateAsReference(use: .membership)
        if dottedByteCount >= 1500 {
            throw .invalidArgument("property path is longer than 1500 bytes.")
        }
    }

    /// Checks a path named by a read mask (the fields a read returns): as a mask, except that
    /// `__name__` alone is allowed (the SDKs ask for keys only with it).
    package func validateAsReadMask() throws(FirestoreError) {
        if !isDocumentName { try validateAsMask() }
    }

    /// Whether a field name matches `__.*__`, which Firestore reserves.
    package static func isReservedName(_ name: String) -> Bool {
        // `__.+__`: at least one character between (`____` is an ordinary name).
        name.utf8.count >= 5 && name.hasPrefix("__") && name.hasSuffix("__")
    }
}
