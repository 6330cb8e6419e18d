import Foundation

/// A configuration file Hearth loads at start and again whenever it changes (rules, indexes):
/// polled every `interval` for a new modification time.
struct WatchedFile: Sendable {
    let file: URL
    /// Reads and applies the file; returns whether it is now in force (reports its own problems).
    let load: @Sendable () -> Bool
    let report: @Sendable (String) -> Void
    /// What the file holds, for messages ("rules", "indexes").
    let kind: String

    static func modificationDate(_ url: URL) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
    }

    /// Polls the modification time and reloads on change, until cancelled.
    func watch(interval: Duration = .milliseconds(500)) async {
        var last = Self.modificationDate(file)
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            let now = Self.modificationDate(file)
            if now != last {
                last = now
                if load() { report("hearth: reloaded \(kind) from \(file.path)") }
            }
        }
    }
}

extension WatchedFile {
    /// A file whose text `apply` puts in force (returning whether it did); one that cannot be
    /// read is reported as such.
    init(file: URL, kind: String, report: @escaping @Sendable (String) -> Void, apply: @escaping @Sendable (String) -> Bool) {
        self.init(file: file, load: {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else {
                report("hearth: cannot read \(kind) file \(file.path)")
                return false
            }
            return apply(text)
        }, report: report, kind: kind)
    }
}
