package import StorageModel

/// A resumable upload in progress (or just finished): where its bytes go and what to make of
/// them once complete. Kept in SQLite beside the objects, so an upload survives a restart and
/// resumes where its acknowledged bytes end.
package struct UploadSession: Sendable, Equatable {
    /// Which API started it: the answers (and the rules) differ.
    package enum API: String, Sendable {
        /// The Firebase API (`X-Goog-Upload-Protocol: resumable`), judged by the rules.
        case firebase
        /// The GCS JSON API (`uploadType=resumable`), as admin.
        case gcs
    }

    package var id: String
    package var bucket: String
    package var name: String
    package var api: API
    /// The metadata the upload started with, as JSON text.
    package var metadata: String
    /// The `Authorization` header of the request that started it, which the rules judge at
    /// the end, as the official emulator does.
    package var authorization: String?
    /// The size the client announced, when it did.
    package var declaredSize: Int64?
    /// Conditions on the object the upload replaces, checked when it ends.
    package var preconditions = Preconditions()
    /// Bytes received and on disk.
    package var received: Int64
    /// When it started (microseconds since the epoch).
    package var created: Int64
    /// Once finished: the HTTP status its end was answered with (a repeated finalize gets it
    /// again), and the generation it wrote, if it wrote one.
    package var finalStatus: Int?
    package var finalGeneration: Int64?

    package init(id: String, bucket: String, name: String, api: API, metadata: String, authorization: String?,
                 declaredSize: Int64?, created: Int64) {
        self.id = id
        self.bucket = bucket
        self.name = name
        self.api = api
        self.metadata = metadata
        self.authorization = authorization
        self.declaredSize = declaredSize
        self.received = 0
        self.created = created
    }

    /// Whether it has been finalized or failed for good.
    package var isFinished: Bool { finalStatus != nil }
}
