package import Foundation
package import FirestoreModel
import GRDB

/// What a client is told when the disk under Hearth fails it. A full disk, a data directory
/// that cannot be written or opened, or an I/O error are temporary for Firestore's purposes:
/// UNAVAILABLE (the status production gives when a request may be retried), with what to do.
/// Nothing is kept open in a failed state, so requests succeed again as soon as the cause is
/// gone (the failed transaction was rolled back; a store that could not be opened is opened
/// by the next request). Anything else stays INTERNAL, with SQLite's text.
package enum StorageFailure {
    package static func error(_ error: any Error, directory: URL?, opening database: DatabaseID? = nil) -> FirestoreError {
        let place = directory.map { "Hearth's data directory (\($0.path))" } ?? "Hearth's storage"
        let what = database.map { "The database \($0.name) could not be opened" } ?? "The request could not be stored"
        if let sqlite = error as? DatabaseError {
            let detail = "(SQLite: \(sqlite.message ?? "\(sqlite.resultCode)"))"
            switch sqlite.resultCode.primaryResultCode {
            case .SQLITE_FULL:
                return .init(.unavailable, "\(what): the disk holding \(place) is full. Free some space and retry; nothing acknowledged was lost. \(detail)")
            case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
                return .init(.unavailable, "\(what): \(place) cannot be written. Make it writable and retry; nothing acknowledged was lost. \(detail)")
            case .SQLITE_IOERR:
                return .init(.unavailable, "\(what): the disk under \(place) failed to read or write. Check the disk and retry. \(detail)")
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                return .init(.unavailable, "\(what): another process holds \(place) locked. Stop it (one Hearth per data directory) and retry. \(detail)")
            default:
                return .internalError("Storage failure: \(sqlite)")
            }
        }
        let ns = error as NSError
        if ns.domain == NSCocoaErrorDomain, [CocoaError.fileWriteNoPermission.rawValue, CocoaError.fileWriteVolumeReadOnly.rawValue,
                                            CocoaError.fileWriteOutOfSpace.rawValue, CocoaError.fileWriteUnknown.rawValue].contains(ns.code) {
            return .init(.unavailable, "\(what): \(place) cannot be written (\(ns.localizedDescription)). Make it writable, with space free, and retry.")
        }
        return .internalError("Storage failure: \(error)")
    }
}
