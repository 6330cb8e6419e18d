#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An open file of object bytes: appended to while an upload streams in, read by offset
/// while a download streams out. Every call blocks on the file system; callers run them off
/// the event loops.
///
/// Not shared between tasks at once: one upload or one download owns it, and closes it.
package final class BlobFile: @unchecked Sendable {
    private var descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        if descriptor >= 0 { _ = systemClose(descriptor) }
    }

    /// Creates a new file (it must not exist) for writing.
    package static func create(at path: String) throws(BlobFileError) -> BlobFile {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BlobFileError(operation: "create", path: path, errno: errno) }
        return BlobFile(descriptor: fd)
    }

    /// Opens an existing file for appending (a resumable upload continuing after a restart).
    package static func openForAppending(at path: String) throws(BlobFileError) -> BlobFile {
        let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw BlobFileError(operation: "open", path: path, errno: errno) }
        return BlobFile(descriptor: fd)
    }

    /// Opens an existing file for reading; nil when it does not exist.
    package static func openForReading(at path: String) throws(BlobFileError) -> BlobFile? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 && errno == ENOENT { return nil }
        guard fd >= 0 else { throw BlobFileError(operation: "open", path: path, errno: errno) }
        return BlobFile(descriptor: fd)
    }

    /// Appends all of `bytes`.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(BlobFileError) {
        var offset = 0
        while offset < bytes.count {
            let written = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw BlobFileError(operation: "write", path: nil, errno: errno)
            }
            offset += written
        }
    }

    /// Reads up to `count` bytes at `offset` into `buffer`; returns how many were read (0 at
    /// the end of the file).
    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(BlobFileError) -> Int {
        while true {
            let count = pread(descriptor, buffer.baseAddress, buffer.count, off_t(offset))
            if count >= 0 { return count }
            if errno != EINTR { throw BlobFileError(operation: "read", path: nil, errno: errno) }
        }
    }

    /// Flushes the file's data to the disk.
    package func sync() throws(BlobFileError) {
        #if canImport(Glibc)
        let status = fdatasync(descriptor)
        #else
        let status = fsync(descriptor)
        #endif
        guard status == 0 else { throw BlobFileError(operation: "sync", path: nil, errno: errno) }
    }

    /// The file's size.
    package func size() throws(BlobFileError) -> Int64 {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw BlobFileError(operation: "stat", path: nil, errno: errno) }
        return Int64(info.st_size)
    }

    /// Cuts the file to `size` bytes.
    package func truncate(to size: Int64) throws(BlobFileError) {
        guard ftruncate(descriptor, off_t(size)) == 0 else { throw BlobFileError(operation: "truncate", path: nil, errno: errno) }
    }

    /// Closes the file.
    package func close() {
        if descriptor >= 0 { _ = systemClose(descriptor) }
        descriptor = -1
    }
}

/// A failed file-system call, with the operation and the system's reason.
package struct BlobFileError: Error, Sendable, CustomStringConvertible {
    package var operation: String
    package var path: String?
    package var errno: Int32

    package init(operation: String, path: String?, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    package var description: String {
        let reason = String(cString: strerror(errno))
        return path.map { "\(operation) \($0): \(reason)" } ?? "\(operation): \(reason)"
    }

    /// Whether the disk is full.
    package var isOutOfSpace: Bool { errno == ENOSPC || errno == EDQUOT }
}

private func systemWrite(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(fd, pointer, count)
    #else
    Darwin.write(fd, pointer, count)
    #endif
}

private func systemClose(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
    Glibc.close(fd)
    #else
    Darwin.close(fd)
    #endif
}
