/// An entry to add to `firestore.indexes.json`: a composite index (to `indexes`) or a field
/// override (to `fieldOverrides`, replacing the field's own override if it has one).
package enum IndexSuggestion: Sendable, Hashable, CustomStringConvertible {
    case composite(CompositeIndex)
    case fieldOverride(FieldOverride)

    package var description: String {
        switch self {
        case .composite(let index): "index " + index.description
        case .fieldOverride(let override): "override " + override.description
        }
    }
}
