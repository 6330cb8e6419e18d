package import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where object bytes live: `blobs/<id>` for complete objects, `uploads/<id>` for uploads
/// still arriving. Files are named by random IDs, never by object names, so no name can reach
/// outside the directory.
///
/// An upload is written to `uploads/`, flushed, and renamed into `blobs/` when complete; only
/// then is its row committed (``ObjectStore``). A crash leaves at worst a file no row names,
/// removed by ``sweep(keepingBlobs:keepingUploads:)`` at the next start: never a half object.
package struct BlobDirectory: Sendable {
    package let root: URL
    /// Whether writes are flushed to disk before they count (off for a temporary directory).
    package let isDurable: Bool

    package var blobsURL: URL { root.appendingPathComponent("blobs") }
    package var uploadsURL: URL { root.appendingPathComponent("uploads") }

    /// Uses (creating) `root` with its `blobs/` and `uploads/`.
    package init(root: URL, isDurable: Bool) throws {
        self.root = root
        self.isDurable = isDurable
        for directory in [root.appendingPathComponent("blobs"), root.appendingPathComponent("uploads")] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
    }

    /// A fresh directory under the system's temporary directory, for `--ephemeral`: object bytes
    /// are never held in memory, so an ephemeral emulator keeps them in files it removes on exit.
    /// They sit in a directory of the user's own, `hearth-storage-<uid>/<pid>-<id>`, where the
    /// directories of earlier ephemeral runs whose process is gone (killed) are removed first
    /// (only that directory is listed, not the whole temporary directory, which on a busy machine
    /// holds thousands of entries: listing it cost 7 ms and 2 MiB at every start).
    package static func temporary() throws -> BlobDirectory {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-storage-\(getuid())")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? [] {
            let pidText = entry.prefix { $0 != "-" }
            if let pid = Int32(pidText), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH {
                try? FileManager.default.removeItem(at: base.appendingPathComponent(entry))
            }
        }
        return try BlobDirectory(root: base.appendingPathComponent("\(getpid())-\(newID().prefix(8))"), isDurable: false)
    }

    /// A new random ID for a blob or an upload: 32 hexadecimal digits.
    package static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let text = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }.joined()
    }

    package func blobPath(_ id: String) -> String { blobsURL.appendingPathComponent(id).path }
    package func uploadPath(_ id: String) -> String { uploadsURL.appendingPathComponent(id).path }

    /// Moves a complete upload into `blobs/` under the same ID (the caller flushed the file).
    package func publish(upload id: String) throws {
        guard rename(uploadPath(id), blobPath(id)) == 0 else {
            throw BlobFileError(operation: "rename", path: uploadPath(id), errno: errno)
        }
        if isDurable { try syncDirectory(blobsURL.path) }
    }

    /// Removes a blob (an object replaced or deleted, or one whose commit failed).
    package func removeBlob(_ id: String) {
        _ = unlink(blobPath(id))
    }

    /// Removes an upload's file.
    package func removeUpload(_ id: String) {
        _ = unlink(uploadPath(id))
    }

    /// The files in `blobs/` and in `uploads/`, by name.
    package struct Entries: Sendable {
        package var blobs: Set<String> = []
        package var uploads: Set<String> = []

        package init(blobs: Set<String> = [], uploads: Set<String> = []) {
            self.blobs = blobs
            self.uploads = uploads
        }
    }

    /// The files there are now.
    package func entries() -> Entries {
        func names(_ directory: URL) -> Set<String> { Set((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []) }
        return Entries(blobs: names(blobsURL), uploads: names(uploadsURL))
    }

    /// Removes every file no row refers to: blobs not in `keepingBlobs` (a crash after the rename
    /// and before the commit, or after a replacing commit and before the old blob's removal) and
    /// uploads not in `keepingUploads` (one-shot uploads cut short); only those in `among` when
    /// given (the files a crash can have left: those there before the process started). Returns
    /// how many went.
    @discardableResult
    package func sweep(keepingBlobs: Set<String>, keepingUploads: Set<String>, among: Entries? = nil) -> Int {
        var removed = 0
        let present = among ?? entries()
        for (directory, names, keep) in [(blobsURL, present.blobs, keepingBlobs), (uploadsURL, present.uploads, keepingUploads)] {
            for entry in names where !keep.contains(entry) {
                if unlink(directory.appendingPathComponent(entry).path) == 0 { removed += 1 }
            }
        }
        return removed
    }

    /// Removes the whole directory (an ephemeral emulator's, at exit).
    package func removeAll() {
        try? FileManager.default.removeItem(at: root)
    }

    private func syncDirectory(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw BlobFileError(operation: "open", path: path, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw BlobFileError(operation: "sync", path: path, errno: errno) }
    }
}
