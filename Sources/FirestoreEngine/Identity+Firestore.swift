package import FirestoreModel
package import HearthIdentity

extension Identity {
    /// The caller of a Firestore request with this `Authorization` header; a malformed
    /// credential is INVALID_ARGUMENT, as on the official emulator.
    package static func firestoreCaller(authorization header: String?) throws(FirestoreError) -> Identity {
        do {
            return try decode(authorization: header)
        } catch {
            throw .invalidArgument(error.reason)
        }
    }

    /// Throws PERMISSION_DENIED unless the caller is admin: Firestore's metadata operations
    /// (listing collection IDs, listing missing documents, batch writes) are admin-only.
    package func requireAdmin(_ what: String) throws(FirestoreError) {
        guard isAdmin else {
            throw .permissionDenied("\(what) require admin authentication. Send 'Authorization: Bearer owner' (the admin SDKs do when FIRESTORE_EMULATOR_HOST is set).")
        }
    }
}
