/// The GCS JSON API's conditions on a write (`ifGenerationMatch`, `ifGenerationNotMatch`,
/// `ifMetagenerationMatch`, `ifMetagenerationNotMatch`): a write whose conditions the current
/// object does not meet fails with 412, and `ifGenerationMatch=0` means "only if there is no
/// such object".
package struct Preconditions: Sendable, Equatable {
    package var ifGenerationMatch: Int64?
    package var ifGenerationNotMatch: Int64?
    package var ifMetagenerationMatch: Int64?
    package var ifMetagenerationNotMatch: Int64?

    package init() {}

    /// Reads the conditions from query parameters; throws 400 for one that is not a number.
    package init(query: [(String, String)]) throws(StorageError) {
        func value(_ name: String) throws(StorageError) -> Int64? {
            guard let text = query.last(where: { $0.0 == name })?.1 else { return nil }
            guard let number = Int64(text) else { throw StorageError.invalidArgument("Invalid value for \(name): \(text).") }
            return number
        }
        ifGenerationMatch = try value("ifGenerationMatch")
        ifGenerationNotMatch = try value("ifGenerationNotMatch")
        ifMetagenerationMatch = try value("ifMetagenerationMatch")
        ifMetagenerationNotMatch = try value("ifMetagenerationNotMatch")
    }

    /// Throws 412 unless `current` (nil: no object) meets every condition.
    package func check(_ current: StoredObject?) throws(StorageError) {
        let generation = current?.generation ?? 0
        let failed = StorageError(.preconditionFailed, "At least one of the pre-conditions you specified did not hold.", reason: "conditionNotMet")
        if let match = ifGenerationMatch, match != generation { throw failed }
        if let notMatch = ifGenerationNotMatch, notMatch == generation { throw failed }
        if let match = ifMetagenerationMatch, current?.metageneration != match { throw failed }
        if let notMatch = ifMetagenerationNotMatch, current?.metageneration == notMatch { throw failed }
    }

    /// A compact text form for keeping the conditions of a resumable upload until it ends:
    /// `g=1;gn=;m=;mn=`.
    package var encoded: String {
        [ifGenerationMatch, ifGenerationNotMatch, ifMetagenerationMatch, ifMetagenerationNotMatch]
            .map { $0.map(String.init) ?? "" }.joined(separator: ";")
    }

    /// Reads ``encoded``.
    package init(encoded: String) {
        let values = encoded.split(separator: ";", omittingEmptySubsequences: false).map { Int64($0) }
        func at(_ index: Int) -> Int64? { index < values.count ? values[index] : nil }
        ifGenerationMatch = at(0)
        ifGenerationNotMatch = at(1)
        ifMetagenerationMatch = at(2)
        ifMetagenerationNotMatch = at(3)
    }
}
