package import FirestoreModel

/// Who is making a request, as the transports decode it from the `Authorization` header.
package enum Identity: Sendable, Hashable {
    /// `Authorization: Bearer owner`: the admin SDKs; bypasses security rules.
    case admin
    /// A client with a decoded ID token (signature not checked, as in the official emulator).
    case client(claims: [FieldName: Value])
    /// No credentials.
    case unauthenticated

    package var isAdmin: Bool { self == .admin }

    /// Throws PERMISSION_DENIED unless the caller is admin: Firestore's metadata operations
    /// (listing collection IDs, listing missing documents, batch writes) are admin-only.
    package func requireAdmin(_ what: String) throws(FirestoreError) {
        guard isAdmin else {
            throw .permissionDenied("\(what) require admin authentication. Send 'Authorization: Bearer owner' (the admin SDKs do when FIRESTORE_EMULATOR_HOST is set).")
        }
    }
}
