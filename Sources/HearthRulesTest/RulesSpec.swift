package import FirestoreIndexes
package import FirestoreModel
package import HearthIdentity
package import SecurityRules

/// One rules test spec (docs/rules-tests.md): the rules, the data written as admin before each
/// case, and the cases.
package struct RulesSpec: Sendable {
    /// The spec's path as given on the command line.
    package var path: String
    /// The spec's name in reports: its file name without the extension.
    package var name: String
    /// The database every case runs against.
    package var database: DatabaseID
    /// The rules files, named as the spec names them.
    package var rules: [RulesSource]
    /// The composite indexes queries may use; nil serves every query, as the emulator without
    /// an indexes file does.
    package var indexes: IndexDefinitions?
    /// The writes that lay out the data before each case, committed as admin.
    package var seed: [Write]
    /// The cases, in the spec's order.
    package var cases: [RulesTestCase]
}

/// One case of a spec: who calls, what they do, and what must happen.
package struct RulesTestCase: Sendable {
    /// The name in reports.
    package var name: String
    /// The line the case starts on.
    package var line: Int
    /// The caller.
    package var identity: Identity
    /// The request.
    package var operation: RulesOperation
    /// The outcome that passes.
    package var expectation: RulesExpectation
    /// Text the error's message must contain (`because:`), so that a denial passes only for
    /// the reason the case is about: a failing sub-expression, a function, a value.
    package var because: String?
}

/// What a case asks of the engine.
package enum RulesOperation: Sendable {
    /// A single-document read.
    case get(ResourcePath)
    /// A query, validated when the case runs (so that `expect: INVALID_ARGUMENT` can test it).
    case list(RulesQuery)
    /// A snapshot listener on one document: the read a listen target's first snapshot makes.
    case listenDocument(ResourcePath)
    /// A snapshot listener on a query.
    case listenQuery(RulesQuery)
    /// Writes committed together: one write, or a batch.
    case commit([Write])
    /// A read-write transaction: its reads, then its writes committed with it.
    case transaction(reads: [TransactionRead], writes: [Write])

    /// A read inside a transaction.
    package enum TransactionRead: Sendable {
        case get(ResourcePath)
        case list(RulesQuery)
    }
}

/// A query as a spec writes it: a structured query and the collection's parent.
package struct RulesQuery: Sendable {
    package var structured: StructuredQuery
    package var parent: ResourcePath
}

/// The outcome a case expects.
package enum RulesExpectation: Sendable, Equatable, CustomStringConvertible {
    /// The request succeeds.
    case allow
    /// The request fails with this code; `deny` is PERMISSION_DENIED.
    case error(FirestoreError.Code)

    package var description: String {
        switch self {
        case .allow: "allow"
        case .error(.permissionDenied): "deny"
        case .error(let code): code.rawValue
        }
    }
}
