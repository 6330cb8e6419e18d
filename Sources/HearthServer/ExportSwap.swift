import Foundation

/// Puts a finished export in place of the previous one without a moment in which neither is
/// there: Linux's `renameat2(RENAME_EXCHANGE)` swaps the two directories in one step, after
/// which the previous export (now at the temporary name) is removed. Where the exchange is not
/// available, the previous export is first renamed aside and restored if the second rename
/// fails; ``recover(_:)`` puts it back after a crash between the two renames.
enum ExportSwap {
    private typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
    private static let renameExchange: UInt32 = 2
    private static let currentDirectory: Int32 = -100 // AT_FDCWD

    /// Replaces `target` (if present) with `staging`, which then no longer exists.
    static func replace(_ target: URL, with staging: URL) throws {
        let fileManager = FileManager.default
        guard fileManager.fileExists(atPath: target.path) else {
            try fileManager.moveItem(at: staging, to: target)
            return
        }
        if let exchange = exchangeFunction(), exchange(currentDirectory, staging.path, currentDirectory, target.path, renameExchange) == 0 {
            try? fileManager.removeItem(at: staging) // now the previous export
            return
        }
        let aside = asideURL(target)
        try? fileManager.removeItem(at: aside)
        try fileManager.moveItem(at: target, to: aside)
        do {
            try fileManager.moveItem(at: staging, to: target)
        } catch {
            try? fileManager.moveItem(at: aside, to: target)
            throw error
        }
        try? fileManager.removeItem(at: aside)
    }

    /// After a crash between the two renames of the fallback: the previous export back in place.
    static func recover(_ target: URL) {
        let aside = asideURL(target)
        let fileManager = FileManager.default
        if !fileManager.fileExists(atPath: target.path), fileManager.fileExists(atPath: aside.path) {
            try? fileManager.moveItem(at: aside, to: target)
        }
    }

    private static func asideURL(_ target: URL) -> URL {
        target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).hearth-previous")
    }

    private static func exchangeFunction() -> RenameAt2? {
        #if os(Linux)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return nil }
        return unsafeBitCast(symbol, to: RenameAt2.self)
        #else
        return nil
        #endif
    }
}
