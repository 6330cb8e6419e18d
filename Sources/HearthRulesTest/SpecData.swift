import FirestoreModel

/// A document's data as a spec writes it: the values, and the transforms and deletions that
/// apply at commit, with the field paths each kind of write derives its mask from.
struct SpecData: Sendable {
    /// The values, nested as the document holds them.
    var fields: [FieldName: Value] = [:]
    /// Transforms (`!serverTimestamp`, `!increment`, …) at their full paths.
    var transforms: [FieldTransform] = []
    /// Fields marked `!delete`.
    var deletes: [FieldPath] = []
    /// Paths of every value that is not a map, and of empty maps, and of deletions: the mask
    /// of a `set` with `merge: true`, as the SDKs build it.
    var leafPaths: [FieldPath] = []
    /// The paths the data's top-level keys name, but for those holding only a transform: the
    /// mask of an `update`, as the SDKs build it.
    var topPaths: [FieldPath] = []

    /// Puts `value` at `path`, creating the maps on the way.
    mutating func set(_ value: Value, at path: [String]) {
        Self.set(value, at: path[...], in: &fields)
    }

    private static func set(_ value: Value, at path: ArraySlice<String>, in map: inout [FieldName: Value]) {
        guard let first = path.first else { return }
        let name = FieldName(first)
        if path.count == 1 {
            map[name] = value
            return
        }
        var child = map[name]?.mapValue ?? [:]
        set(value, at: path.dropFirst(), in: &child)
        map[name] = .map(child)
    }
}
