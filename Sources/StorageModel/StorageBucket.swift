package import HearthJSON

/// A bucket: a name, when it was made and the few settings a bucket resource reports.
///
/// Buckets come into being when an object route names them (as with the official emulator)
/// or when a client creates one (`POST /storage/v1/b`).
package struct StorageBucket: Sendable, Equatable {
    package var name: String
    package var timeCreated: Int64
    package var location = "US"
    package var storageClass = "STANDARD"
    /// `labels`, as the client set them.
    package var labels: [String: String] = [:]

    package init(name: String, timeCreated: Int64) {
        self.name = name
        self.timeCreated = timeCreated
    }

    /// The GCS JSON API's bucket resource (`storage#bucket`).
    package func gcsJSON(baseURL: String) -> JSON {
        var pairs: [(String, JSON)] = [
            ("kind", .string("storage#bucket")),
            ("selfLink", .string("\(baseURL)/storage/v1/b/\(name)")),
            ("id", .string(name)), ("name", .string(name)),
            ("projectNumber", .string("000000000000")),
            ("metageneration", .string("1")),
            ("location", .string(location)), ("storageClass", .string(storageClass)),
            ("etag", .string("CAE=")),
            ("timeCreated", .string(StorageTime.rfc3339(micros: timeCreated))),
            ("updated", .string(StorageTime.rfc3339(micros: timeCreated))),
            ("locationType", .string("multi-region")),
        ]
        if !labels.isEmpty { pairs.append(("labels", StoredObject.sortedObject(labels))) }
        return .object(pairs)
    }
}
