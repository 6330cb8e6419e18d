import HearthIdentity
package import SecurityRules
package import StorageModel

/// Storage rules enforcement: every Firebase API call is judged before it touches data, with
/// the bucket's rules, the caller's identity and the objects involved; `firestore.get()` reads
/// Hearth's Firestore through ``StorageDocumentLookup``. No I/O of its own.
package struct StorageAuthorizer: Sendable {
    package let rules: StorageRulesRegistry
    let firestore: (any StorageDocumentLookup)?
    let clock: any StorageClock

    package init(rules: StorageRulesRegistry, firestore: (any StorageDocumentLookup)?, clock: any StorageClock) {
        self.rules = rules
        self.firestore = firestore
        self.clock = clock
    }

    /// Decides a request with the bucket's rules; the admin is never judged.
    ///
    /// - Parameters:
    ///   - path: The rules path (`["b", bucket, "o", …]`).
    ///   - resource: The object as it is (`resource`), nil when there is none.
    ///   - requestResource: The object as the request would leave it (`request.resource`).
    ///   - permission: What a refusal says was missing (`No WRITE permission.`).
    package func authorize(_ access: StorageAccess, _ method: RulesMethod, bucket: BucketName, path: [String],
                           resource: StoredObject?, requestResource: StoredObject?,
                           permission: StorageError.Permission) throws(StorageError) {
        guard let decision = try decision(access, method, bucket: bucket, path: path, resource: resource, requestResource: requestResource) else {
            return
        }
        guard decision.isAllowed else { throw StorageError.denied(permission, detail: decision.description) }
    }

    /// The rules' decision, or nil for the admin. Throws 403 when the bucket has no rules, and
    /// for a listing under rules older than version 2 (as the official emulator refuses it).
    package func decision(_ access: StorageAccess, _ method: RulesMethod, bucket: BucketName, path: [String],
                  resource: StoredObject?, requestResource: StoredObject?) throws(StorageError) -> RulesDecision? {
        guard case .rules(let identity) = access else { return nil }
        guard let ruleset = rules.ruleset(for: bucket) else {
            throw StorageError(.permissionDenied, "Permission denied. Storage Emulator has no loaded ruleset.", permission: .noRuleset,
                               detail: "Load storage rules with --storage-rules FILE or PUT /internal/setRules.")
        }
        if method == .list && !ruleset.isVersion2 {
            throw StorageError.denied(.list, detail: "List operations are only allowed for rules_version='2'.")
        }
        let variables = StorageRuleValues.variables(identity: identity, path: path, resource: resource,
                                                    requestResource: requestResource, time: clock.nowMicros())
        let request = RulesRequest(method: method, path: path, variables: variables)
        return ruleset.decision(for: request, dataSource: FirestoreRulesDataSource(lookup: firestore, project: bucket.projectID))
    }

    /// Whether a write of `requestResource` may be refused before its bytes arrive: the rules
    /// deny it whatever the bytes hash to.
    ///
    /// The decision is made with the declared size (each of `sizes`, all must be refused) and
    /// placeholder hashes, and only when no rules file mentions `md5Hash`, `crc32c` or `etag`:
    /// then the hashes cannot change the verdict, and a refusal now is the refusal the
    /// complete upload would get. Otherwise (or when the size is not declared) the upload is
    /// judged when complete, its bytes on disk, never in memory.
    package func refusesEarly(_ access: StorageAccess, bucket: BucketName, name: ObjectName, existing: StoredObject?,
                      requestResource: StoredObject, sizes: [Int64]) throws(StorageError) -> StorageError? {
        guard case .rules = access, !sizes.isEmpty, let ruleset = rules.ruleset(for: bucket) else { return nil }
        let observesHashes = ruleset.sources.contains { source in
            ["md5Hash", "crc32c", "etag"].contains { source.text.contains($0) }
        }
        guard !observesHashes else { return nil }
        let method: RulesMethod = existing == nil ? .create : .update
        var last: RulesDecision?
        for size in sizes {
            var candidate = requestResource
            candidate.size = size
            guard let decision = try decision(access, method, bucket: bucket, path: StorageRuleValues.path(bucket: bucket.text, name: name.text),
                                              resource: existing, requestResource: candidate) else { return nil }
            if decision.isAllowed { return nil }
            last = decision
        }
        return StorageError.denied(.write, detail: last?.description)
    }
}
