#if canImport(Glibc)
import Glibc
#endif

/// Hands the C allocator's free memory back to the system. After thousands of abandoned
/// sessions end, glibc keeps the pages they used in its arenas (one per thread that allocated),
/// so a process that once held them stays that large; `malloc_trim(0)` releases every free page
/// of every arena. Swift's Glibc module does not declare `malloc_trim`, so it is looked up once.
package enum FreeMemory {
    #if canImport(Glibc)
    private typealias Trim = @convention(c) (Int) -> Int32
    private static let trim: Trim? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: Trim.self)
    }()
    #endif

    package static func returnToSystem() {
        #if canImport(Glibc)
        _ = trim?(0)
        #endif
    }
}
