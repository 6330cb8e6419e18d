import HearthJSON

/// Suggested indexes merged into the text of a `firestore.indexes.json` (for
/// `hearth indexes suggest --write`): new composites are appended to `indexes`, new overrides
/// to `fieldOverrides`, and a field's existing override gains the indexes suggested for it.
/// Everything else in the file stays as it was, byte for byte; new entries follow the file's
/// indentation and, where its index fields sit on one line each, that style. An index the file
/// already has (the implicit `__name__` made explicit) is not added again.
package struct IndexFileMerge: Sendable {
    /// The new text; the input unchanged when nothing was added or the file has errors.
    package var text: String
    /// The entries added or changed, in the order given.
    package var added: [IndexSuggestion] = []
    /// The errors of the existing file, which is then left alone.
    package var diagnostics: [IndexDiagnostic] = []

    package init(merging suggestions: [IndexSuggestion], into text: String) {
        self.text = text
        if text.allSatisfy(\.isWhitespace) {
            let plan = Plan(suggestions, existing: .none)
            added = plan.added
            let writer = IndexFileWriter()
            self.text = writer.render(.object([
                ("indexes", .array(plan.composites.map(writer.json(for:)))),
                ("fieldOverrides", .array(plan.newOverrides.map(writer.json(for:)))),
            ]), indent: "") + "\n"
            return
        }
        let (existing, problems) = IndexDefinitions.parse(text)
        diagnostics = problems.filter { $0.severity == .error }
        let bytes = Array(text.utf8)
        guard diagnostics.isEmpty, let root = try? LocatedJSON.parse(bytes) else { return }
        let plan = Plan(suggestions, existing: existing)
        added = plan.added
        guard !added.isEmpty else { return }
        let layout = Layout(bytes: bytes, root: root)
        var edits: [(start: Int, end: Int, text: String)] = []
        let indexesNode = root.member("indexes")!.value
        if !plan.composites.isEmpty {
            edits.append(layout.append(plan.composites.map(IndexSuggestion.composite), to: indexesNode))
        }
        let overridesNode = root.member("fieldOverrides")?.value
        for (position, override) in plan.replacedOverrides {
            guard let node = overridesNode?.elements[position] else { continue }
            edits.append((node.start, node.end, layout.writer.entry(.fieldOverride(override), indent: layout.lineIndent(of: node.start))))
        }
        if !plan.newOverrides.isEmpty {
            let entries = plan.newOverrides.map(IndexSuggestion.fieldOverride)
            if let overridesNode {
                edits.append(layout.append(entries, to: overridesNode))
            } else {
                let member = layout.memberIndent
                let array = layout.arrayText(entries, elementIndent: member + layout.writer.unit, closingIndent: member)
                edits.append((indexesNode.end, indexesNode.end, ",\n" + member + "\"fieldOverrides\": " + array))
            }
        }
        var out = bytes
        for edit in edits.sorted(by: { $0.start > $1.start }) {
            out.replaceSubrange(edit.start..<edit.end, with: Array(edit.text.utf8))
        }
        self.text = String(decoding: out, as: UTF8.self)
    }

    /// What to add, given what the file has.
    private struct Plan {
        var composites: [CompositeIndex] = []
        var newOverrides: [FieldOverride] = []
        /// Existing overrides (by position in `fieldOverrides`) with indexes added.
        var replacedOverrides: [(Int, FieldOverride)] = []
        var added: [IndexSuggestion] = []

        init(_ suggestions: [IndexSuggestion], existing: IndexDefinitions) {
            for suggestion in suggestions {
                switch suggestion {
                case .composite(let index):
                    guard !existing.indexes.contains(where: { $0.isSameIndex(as: index) }),
                          !composites.contains(where: { $0.isSameIndex(as: index) }) else { continue }
                    composites.append(index)
                    added.append(suggestion)
                case .fieldOverride(let override):
                    let isSameField = { (o: FieldOverride) in o.collectionGroup == override.collectionGroup && o.fieldPath == override.fieldPath }
                    if let i = newOverrides.firstIndex(where: isSameField) {
                        let merged = Self.union(newOverrides[i].indexes, override.indexes)
                        guard merged != newOverrides[i].indexes else { continue }
                        newOverrides[i].indexes = merged
                    } else if let i = replacedOverrides.firstIndex(where: { isSameField($0.1) }) {
                        let merged = Self.union(replacedOverrides[i].1.indexes, override.indexes)
                        guard merged != replacedOverrides[i].1.indexes else { continue }
                        replacedOverrides[i].1.indexes = merged
                    } else if let position = existing.fieldOverrides.firstIndex(where: isSameField) {
                        var merged = existing.fieldOverrides[position]
                        merged.indexes = Self.union(merged.indexes, override.indexes)
                        guard merged != existing.fieldOverrides[position] else { continue }
                        replacedOverrides.append((position, merged))
                    } else {
                        newOverrides.append(override)
                    }
                    added.append(suggestion)
                }
            }
        }

        static func union(_ a: [SingleFieldIndex], _ b: [SingleFieldIndex]) -> [SingleFieldIndex] {
            a + b.filter { !a.contains($0) }
        }
    }

    /// The file's indentation and style, read from its text.
    private struct Layout {
        let bytes: [UInt8]
        /// The indentation of the top-level members.
        let memberIndent: String
        var writer = IndexFileWriter()

        init(bytes: [UInt8], root: LocatedJSON) {
            self.bytes = bytes
            var member = "  "
            if let first = root.members.first {
                let indent = Self.leadingSpace(bytes, before: first.keyStart)
                if let indent, !indent.isEmpty { member = indent }
            }
            memberIndent = member
            writer.unit = member
            // One line per index field (or override index), as the file has them?
            let fields = (root.member("indexes")?.value.elements ?? []).flatMap { $0.member("fields")?.value.elements ?? [] }
            let overrideIndexes = (root.member("fieldOverrides")?.value.elements ?? []).flatMap { $0.member("indexes")?.value.elements ?? [] }
            if let sample = (fields + overrideIndexes).first {
                writer.compactLeaves = !bytes[sample.start..<sample.end].contains(0x0A)
            }
        }

        /// The spaces before `offset` when only spaces precede it on its line; nil otherwise.
        static func leadingSpace(_ bytes: [UInt8], before offset: Int) -> String? {
            var start = offset
            while start > 0, bytes[start - 1] != 0x0A { start -= 1 }
            let prefix = bytes[start..<offset]
            return prefix.allSatisfy { $0 == 0x20 || $0 == 0x09 } ? String(decoding: prefix, as: UTF8.self) : nil
        }

        /// The indentation of the line holding `offset`.
        func lineIndent(of offset: Int) -> String {
            var start = offset
            while start > 0, bytes[start - 1] != 0x0A { start -= 1 }
            return String(decoding: bytes[start...].prefix { $0 == 0x20 || $0 == 0x09 }, as: UTF8.self)
        }

        /// The edit that appends `entries` to the array `node`.
        func append(_ entries: [IndexSuggestion], to node: LocatedJSON) -> (start: Int, end: Int, text: String) {
            guard let last = node.elements.last else {
                let closing = lineIndent(of: node.start)
                return (node.start, node.end, arrayText(entries, elementIndent: closing + writer.unit, closingIndent: closing))
            }
            let indent = Self.leadingSpace(bytes, before: last.start) ?? lineIndent(of: node.start) + writer.unit
            return (last.end, last.end, entries.map { ",\n" + indent + writer.entry($0, indent: indent) }.joined())
        }

        /// A whole array of `entries`, one per line.
        func arrayText(_ entries: [IndexSuggestion], elementIndent: String, closingIndent: String) -> String {
            "[\n" + entries.map { elementIndent + writer.entry($0, indent: elementIndent) }.joined(separator: ",\n") + "\n" + closingIndent + "]"
        }
    }
}
